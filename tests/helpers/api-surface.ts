/**
 * Measures a module's public API with the compiler: every declaration reachable from its exports
 * (namespace re-exports followed, `@internal` declarations left out, each symbol counted once) and the
 * `any` types in the exported signatures (parameter, return, property and type-alias positions; bodies
 * and initializers are not part of a signature). Used by tests/package/packed.spec.ts on the published
 * declarations, and from the command line on the sources:
 *
 *   node --import tsx tests/helpers/api-surface.ts components/index.ts
 */
import * as path from "path";
import * as ts from "typescript";

export interface ApiSurface {
  /** Distinct exported declarations (a const and a type of one name count once). */
  readonly exports: number;
  /** `any` in exported signatures. */
  readonly any: number;
  /** Where each `any` is (`<entry>:<namespace.>name`). */
  readonly anyIn: readonly string[];
}

function isInternal(d: ts.Node): boolean {
  return ts.getJSDocTags(d).some((t) => t.tagName.text === "internal");
}

/** `any` keywords in a signature node, not descending into bodies. */
function anyKeywords(node: ts.Node): number {
  let n = 0;
  const visit = (x: ts.Node): void => {
    if (x.kind === ts.SyntaxKind.AnyKeyword) n++;
    if (ts.isBlock(x)) return;
    // A declaration with an initializer: only its type annotation is part of the signature.
    if (ts.isVariableDeclaration(x) || ts.isPropertyDeclaration(x) || ts.isParameter(x)) {
      if (x.type) visit(x.type);
      return;
    }
    x.forEachChild(visit);
  };
  visit(node);
  return n;
}

/** `any` in an inferred type (string literals stripped, so `"any"` as a value does not count). */
function inferredAny(checker: ts.TypeChecker, t: ts.Type): number {
  const s = checker.typeToString(t, undefined, ts.TypeFormatFlags.NoTruncation).replace(/"[^"]*"/g, "");
  return (s.match(/\bany\b/g) ?? []).length;
}

function declarationAny(checker: ts.TypeChecker, sym: ts.Symbol, d: ts.Declaration): number {
  if (ts.isVariableDeclaration(d))
    return d.type ? anyKeywords(d.type) : inferredAny(checker, checker.getTypeOfSymbol(sym));
  if (ts.isClassDeclaration(d)) {
    const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
    return d.members
      .filter((m) => !(ts.getCombinedModifierFlags(m as ts.Declaration) & hidden) && !isInternal(m))
      .reduce((n, m) => n + anyKeywords(m), 0);
  }
  if (ts.isFunctionDeclaration(d) && !d.type && d.body) {
    const sig = checker.getSignatureFromDeclaration(d);
    const params = d.parameters.reduce((n, p) => n + anyKeywords(p), 0);
    return params + (sig ? inferredAny(checker, checker.getReturnTypeOfSignature(sig)) : 0);
  }
  return anyKeywords(d);
}

/** The API reachable from `entries` (source files of `program`), labelled by `label(file)`. */
export function apiSurface(
  program: ts.Program,
  entries: readonly string[],
  label: (file: string) => string = (f) => f,
): ApiSurface {
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Symbol>();
  const anyIn: string[] = [];
  let anyCount = 0;
  const walk = (module: ts.Symbol, prefix: string): void => {
    for (const e of checker.getExportsOfModule(module)) {
      const sym = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const decls = (sym.declarations ?? []).filter((d) => !isInternal(d));
      if (decls.length === 0) continue;
      if (decls.some(ts.isSourceFile)) {
        walk(sym, `${prefix}${e.name}.`);
        continue;
      }
      if (seen.has(sym)) continue;
      seen.add(sym);
      const n = decls.reduce((k, d) => k + declarationAny(checker, sym, d), 0);
      if (n > 0) {
        anyCount += n;
        anyIn.push(`${prefix}${e.name}`);
      }
    }
  };
  for (const file of entries) {
    const sf = program.getSourceFile(file);
    const sym = sf && checker.getSymbolAtLocation(sf);
    if (!sym) throw new Error(`${file} is not a module of the program`);
    walk(sym, `${label(file)}:`);
  }
  return { exports: seen.size, any: anyCount, anyIn };
}

if (require.main === module) {
  const root = path.join(__dirname, "..", "..");
  const entries = process.argv.slice(2).map((e) => path.resolve(e));
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(String(d.messageText));
      },
    },
  );
  if (!config) throw new Error("cannot read tsconfig.build.json");
  const program = ts.createProgram(entries, config.options);
  console.log(JSON.stringify(apiSurface(program, entries, (f) => path.relative(root, f))));
}
