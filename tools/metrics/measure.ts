/**
 * The numbers `npm run metrics` prints, measured on the tree under `root` (any checkout: nothing here assumes
 * the layout of the current commit beyond the layer folders, `components/index.ts`, package.json and tsconfig.json).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { apiSurface } from "./api-surface";
import { functionSpans, Layer, LAYERS, layerFiles, lineCount } from "./code-size";

/** The size budgets of eslint.config.mjs (`BUDGETS`); tests/unit/metrics.spec.ts keeps the two equal. */
export const BUDGETS = { fileLines: 600, functionLines: 60 } as const;

/** The barrel whose exports are counted. */
export const BARREL = "components/index.ts";

/** Files whose functions are outside the per-function budget (eslint.config.mjs: a suite is a list of cases). */
export const isSpec = (file: string): boolean => file.endsWith(".spec.ts");

export interface Metrics {
  readonly layers: Readonly<Record<Layer, { readonly files: number; readonly lines: number }>>;
  readonly total: { readonly files: number; readonly lines: number };
  readonly longestFile: { readonly path: string; readonly lines: number };
  readonly filesOverBudget: readonly { readonly path: string; readonly lines: number }[];
  /** Functions over the budget outside spec files, as `path:line name`. */
  readonly functionsOverBudget: readonly { readonly at: string; readonly lines: number }[];
  readonly barrelExports: number;
  /** `any` in the exported signatures of package.json's entry points, and where. */
  readonly publicAny: { readonly count: number; readonly in: readonly string[] };
  /** `any` in the exported signatures of policy/**. */
  readonly policyAny: { readonly count: number; readonly in: readonly string[] };
}

/** The fields of package.json read here. */
interface PackageJson {
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly types?: string;
  readonly main?: string;
}

/** The type entry points of package.json (`exports`, else `types`), mapped from the build output to the sources. */
export function packageEntries(root: string, outDir: string): string[] {
  const pkg: PackageJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const targets: unknown[] = pkg.exports ? Object.values(pkg.exports) : [pkg.types ?? pkg.main];
  const typesOf = (t: unknown): unknown => (t !== null && typeof t === "object" && "types" in t ? t.types : t);
  const rel = path.relative(root, outDir).split(path.sep).join("/");
  return targets
    .map(typesOf)
    .filter((t): t is string => typeof t === "string" && /\.(d\.ts|js)$/.test(t))
    .map((t) => path.posix.normalize(t).replace(new RegExp(`^${rel}/`), ""))
    .map((t) => path.join(root, t.replace(/\.d\.ts$|\.js$/, ".ts")));
}

/** Where the build writes (tsconfig.json `outDir`): package.json's entry points name files under it. */
function outDir(root: string): string {
  const file = path.join(root, "tsconfig.json");
  if (!fs.existsSync(file)) return path.join(root, "bin");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    file,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
      },
    },
  );
  return parsed?.options.outDir ?? path.join(root, "bin");
}

/**
 * The API measures, over one program of the project's own files only (`noResolve`, no lib, no dependency): the
 * counts are syntactic, so parsing the dependencies' declarations would only cost time.
 */
function apiMeasures(root: string, files: readonly string[], policyFiles: readonly string[]) {
  const entries = packageEntries(root, outDir(root));
  const barrel = path.join(root, BARREL);
  for (const f of [barrel, ...entries])
    if (!fs.existsSync(f)) throw new Error(`${path.relative(root, f)}: not found under ${root}`);
  const program = ts.createProgram(files, { noResolve: true, noLib: true, types: [], noEmit: true });
  const label = (f: string) => path.relative(root, f).split(path.sep).join("/");
  const pub = apiSurface(program, entries, label);
  const policy = apiSurface(program, policyFiles, label);
  return {
    barrelExports: apiSurface(program, [barrel]).exports,
    publicAny: { count: pub.any, in: pub.anyIn },
    policyAny: { count: policy.any, in: policy.anyIn },
  };
}

/** Every metric of the tree under `root`. */
export function measure(root: string): Metrics {
  const pkg = path.join(root, "package.json");
  if (!fs.existsSync(pkg)) throw new Error(`${root} has no package.json: --root must name a checkout of the project`);
  const files = layerFiles(root).map((f) => ({ ...f, lines: lineCount(f.text) }));
  const layers = Object.fromEntries(
    LAYERS.map((l) => {
      const of = files.filter((f) => f.layer === l);
      return [l, { files: of.length, lines: of.reduce((n, f) => n + f.lines, 0) }];
    }),
  ) as Record<Layer, { files: number; lines: number }>;
  const longest = files.reduce((a, b) => (b.lines > a.lines ? b : a), { path: "", lines: 0 });
  const functionsOverBudget = files
    .filter((f) => !isSpec(f.path))
    .flatMap((f) => functionSpans(f.path, f.text).map((s) => ({ at: `${f.path}:${s.line} ${s.name}`, lines: s.lines })))
    .filter((s) => s.lines > BUDGETS.functionLines);
  const abs = (layers: readonly Layer[]) =>
    files.filter((f) => layers.includes(f.layer)).map((f) => path.join(root, f.path));
  return {
    layers,
    total: { files: files.length, lines: files.reduce((n, f) => n + f.lines, 0) },
    longestFile: { path: longest.path, lines: longest.lines },
    filesOverBudget: files.filter((f) => f.lines > BUDGETS.fileLines).map((f) => ({ path: f.path, lines: f.lines })),
    functionsOverBudget,
    ...apiMeasures(root, abs(["components", "policy"]), abs(["policy"])),
  };
}
