/**
 * Measures a module's public API with the compiler: every declaration reachable from its exports (namespace
 * re-exports followed, each symbol counted once, and `@internal` left out the way `stripInternal` leaves it out of
 * the published typings: an internal declaration, or an internal `export ... from` statement) and the `any`
 * keywords in the exported signatures (parameter, return, property and type-alias positions; bodies and
 * initializers are not part of a signature, except the signature of a function assigned to an untyped const).
 * The count is syntactic, so it needs no type of a dependency: the same on the sources (`npm run metrics`) as on
 * the published declarations (tests/package/packed.spec.ts).
 */
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

function declarationAny(d: ts.Declaration): number {
  if (ts.isVariableDeclaration(d) && !d.type && d.initializer) {
    // `export const f = (x: any) => ...`: the function's parameters and return type are the signature.
    const init = d.initializer;
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init))
      return [...init.parameters, ...(init.typeParameters ?? []), ...(init.type ? [init.type] : [])].reduce(
        (n, p) => n + anyKeywords(p),
        0,
      );
    return ts.isAsExpression(init) ? anyKeywords(init.type) : 0;
  }
  if (ts.isClassDeclaration(d)) {
    const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
    return d.members
      .filter((m) => !(ts.getCombinedModifierFlags(m as ts.Declaration) & hidden) && !isInternal(m))
      .reduce((n, m) => n + anyKeywords(m), 0);
  }
  return anyKeywords(d);
}

/** An export statement (or one of its specifiers) marked `@internal`. */
function internalExport(d: ts.Declaration): boolean {
  if (ts.isExportSpecifier(d)) return isInternal(d) || isInternal(d.parent.parent);
  if (ts.isNamespaceExport(d)) return isInternal(d.parent);
  return isInternal(d);
}

/**
 * The public exports of `file` by name: its own exports and re-exports that are not internal, then what each
 * non-internal `export * from` brings that is not named already (as the compiler merges them).
 */
function publicExports(checker: ts.TypeChecker, file: ts.SourceFile, memo: Map<ts.SourceFile, Map<string, ts.Symbol>>) {
  const done = memo.get(file);
  if (done) return done;
  const out = new Map<string, ts.Symbol>();
  memo.set(file, out);
  const module = checker.getSymbolAtLocation(file);
  for (const e of module ? checker.getExportsOfModule(module) : []) {
    const own = (e.declarations ?? []).filter((d) => d.getSourceFile() === file);
    if (own.length > 0 && !own.some(internalExport)) out.set(e.name, e);
  }
  for (const st of file.statements) {
    if (!ts.isExportDeclaration(st) || st.exportClause || !st.moduleSpecifier || isInternal(st)) continue;
    const target = checker.getSymbolAtLocation(st.moduleSpecifier)?.valueDeclaration;
    if (!target || !ts.isSourceFile(target)) continue;
    for (const [name, sym] of publicExports(checker, target, memo))
      if (name !== "default" && !out.has(name)) out.set(name, sym);
  }
  return out;
}

/** The API reachable from `entries` (source files of `program`), labelled by `label(file)`. */
export function apiSurface(
  program: ts.Program,
  entries: readonly string[],
  label: (file: string) => string = (f) => f,
): ApiSurface {
  const checker = program.getTypeChecker();
  const memo = new Map<ts.SourceFile, Map<string, ts.Symbol>>();
  const seen = new Set<ts.Symbol>();
  const anyIn: string[] = [];
  let anyCount = 0;
  const walk = (file: ts.SourceFile, prefix: string): void => {
    for (const [name, e] of publicExports(checker, file, memo)) {
      const sym = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const decls = (sym.declarations ?? []).filter((d) => !isInternal(d));
      const module = decls.find(ts.isSourceFile);
      if (module) {
        walk(module, `${prefix}${name}.`);
        continue;
      }
      if (decls.length === 0 || seen.has(sym)) continue;
      seen.add(sym);
      const n = decls.reduce((k, d) => k + declarationAny(d), 0);
      if (n > 0) {
        anyCount += n;
        anyIn.push(`${prefix}${name}`);
      }
    }
  };
  for (const file of entries) {
    const sf = program.getSourceFile(file);
    if (!sf) throw new Error(`${file} is not a module of the program`);
    walk(sf, `${label(file)}:`);
  }
  return { exports: seen.size, any: anyCount, anyIn };
}
