/**
 * Golden files (docs/CONTRIBUTING.md rule 16): rendered text compared with `tests/golden/<relPath>`.
 * `UPDATE_GOLDEN=1` rewrites the file from the code; without it a mismatch fails with the first
 * differing line and the command that refreshes the file after a deliberate change.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

/** Root of the golden files. */
export const GOLDEN_DIR = path.join(__dirname, "..", "golden");

/** Asserts `actual` equals the golden file at `relPath` (or writes it under UPDATE_GOLDEN=1). */
export function expectGolden(relPath: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, relPath);
  if (process.env.UPDATE_GOLDEN === "1") {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  // The goldens live in both spec sets (component graphs in the fast one, whole-stack renders in the slow one).
  const hint = `run \`UPDATE_GOLDEN=1 npm run test:fast && UPDATE_GOLDEN=1 npm run test:slow\` to refresh tests/golden/${relPath} if the change is intended`;
  if (!fs.existsSync(file)) assert.fail(`golden file tests/golden/${relPath} does not exist; ${hint}`);
  const expected = fs.readFileSync(file, "utf8");
  if (expected === actual) return;
  const a = actual.split("\n");
  const e = expected.split("\n");
  const i = a.findIndex((line, k) => line !== e[k]);
  const at = i === -1 ? Math.min(a.length, e.length) : i;
  assert.fail(
    `tests/golden/${relPath} differs at line ${at + 1}:\n  expected: ${JSON.stringify(e[at])}\n  actual:   ${JSON.stringify(a[at])}\n${hint}`,
  );
}
