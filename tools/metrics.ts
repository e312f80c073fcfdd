/**
 * `npm run metrics [-- --json] [-- --root <checkout>]`: the size and API figures a change is judged by (lines
 * per layer, the longest file, files and functions over eslint.config.mjs's budgets, the barrel's exports, `any`
 * in exported signatures). Reads only; measures any checkout, so an old commit can be compared with this one:
 *
 *   git worktree add /tmp/old <commit> && npx tsx tools/metrics.ts --root /tmp/old
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { LAYERS } from "./metrics/code-size";
import { BARREL, BUDGETS, Metrics, measure } from "./metrics/measure";

/** The short commit `root` has checked out, or undefined when it is not a git checkout. */
function commitOf(root: string): string | undefined {
  try {
    return execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
  } catch {
    return undefined;
  }
}

/** The metrics as a small two-column table, under the tree (and commit) they were measured on. */
export function formatTable(m: Metrics, root: string, commit?: string): string {
  const rows: [string, string][] = [
    ...LAYERS.map((l): [string, string] => [`lines: ${l}`, `${m.layers[l].lines} (${m.layers[l].files} files)`]),
    ["lines: total", `${m.total.lines} (${m.total.files} files)`],
    ["longest file", `${m.longestFile.path} (${m.longestFile.lines} lines)`],
    [`files over ${BUDGETS.fileLines} lines`, `${m.filesOverBudget.length}`],
    [`functions over ${BUDGETS.functionLines} lines`, `${m.functionsOverBudget.length} (outside *.spec.ts)`],
    [`exports of ${BARREL}`, `${m.barrelExports}`],
    ["any in exported API", `${m.publicAny.count} (package.json exports)`],
    ["any in policy exports", `${m.policyAny.count} (policy/**)`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `metrics of ${root}${commit ? ` at ${commit}` : ""}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
  ].join("\n");
}

/** Runs the command; returns its exit code (2: bad arguments or a root that is not a checkout). */
export function main(argv: readonly string[], out = console.log, err = console.error): number {
  let root: string;
  let json: boolean;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { root: { type: "string" }, json: { type: "boolean", default: false } },
    });
    root = path.resolve(values.root ?? path.join(__dirname, ".."));
    json = values.json === true;
  } catch (e) {
    err(`${(e as Error).message}\nusage: npm run metrics -- [--json] [--root <checkout>]`);
    return 2;
  }
  let m: Metrics;
  try {
    m = measure(root);
  } catch (e) {
    err(`metrics: ${(e as Error).message}`);
    return 2;
  }
  const commit = commitOf(root);
  out(json ? JSON.stringify({ root, commit, ...m }, null, 2) : formatTable(m, root, commit));
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
