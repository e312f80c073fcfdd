#!/usr/bin/env node
// Runs the named checks at the same time and fails when any of them fails: `npm test` is
// `node tools/side-by-side.mjs specs types`, `npm run lint` is `... eslint prettier`.
//
// Why at once: on a two-core machine the type check is one core's work for ~25 s (it parses ~40 MB of SDK
// declarations) and the specs are one core's work for ~26 s, some of it waiting on fake servers. Run one after the
// other they take their sum; side by side, about the longer one. The specs run in one mocha process, not mocha's
// two workers, when the machine has fewer than four cores: each worker loads tsx, the Pulumi SDK and the
// components again (~15 CPU-s more), which a core already busy with the type check cannot give.
//
// Output: the first check named streams as it runs; the others are held and printed whole when they end, under
// their name, so lines never interleave. The last line starts with mocha's totals ("N passed, N failed, N skipped",
// what CI readers look for) and names each check, its status and its time.
// Plain JavaScript so that it starts without tsx. Plain data in, exit status out; nothing written to disk.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import process from "node:process";

/** The repository root: the checks' paths (`.`, `.mocharc.fast.cjs`) are relative to it, wherever this is run from. */
const ROOT = join(import.meta.dirname, "..");
const bin = (name) => join(ROOT, "node_modules", ".bin", name);
const cores = availableParallelism();

/** Each check: the command and its arguments (exported for tests/unit/ci-checks.spec.ts). */
export const CHECKS = {
  specs: [
    bin("mocha"),
    "--config",
    ".mocharc.fast.cjs",
    ...(cores < 4 ? ["--no-parallel"] : ["--jobs", String(cores - 2)]),
  ],
  types: [bin("tsc"), "--noEmit", "-p", "."],
  eslint: [bin("eslint"), "."],
  prettier: [bin("prettier"), "--check", "."],
};

const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
const children = new Set();

/**
 * What the command line adds to the specs check: mocha's own options (`npm test -- --grep fit`), and spec files,
 * which replace the fast set (`npm test -- tests/unit/fit.spec.ts`: mocha would add a config's spec list to them, so
 * files given run under .mocharc.json, which names none).
 */
export function specsWith(extra) {
  const files = extra.some((a) => /\.spec\.ts$/.test(a));
  const base = CHECKS.specs.map((a) => (files && a === ".mocharc.fast.cjs" ? ".mocharc.json" : a));
  return [...base, ...extra];
}

/** mocha's closing line (tests/helpers/totals-reporter.cjs), which CI readers look for last. */
const TOTALS = /^\d+ passed, \d+ failed, \d+ skipped/;

/** A check's command line: the specs with what the command line added, the others as they are. */
const commandOf = (name, extra) => (name === "specs" ? specsWith(extra) : CHECKS[name]);

/**
 * Runs one command as check `name`; resolves to its summary once it has ended. The live one's output is passed
 * through to `out` as it comes (its colours kept when this terminal has them), remembering its last line; the
 * others' output is held and written whole, under their name, when they end.
 */
function run(name, [cmd, ...args], live, out) {
  const t0 = Date.now();
  const held = [];
  let last = "";
  let partial = ""; // the text after the last newline: a line still being written
  const env = live && process.stdout.isTTY ? { ...process.env, FORCE_COLOR: "1" } : process.env;
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", live ? "inherit" : "pipe"] });
  children.add(child);
  child.stdout.on("data", (d) => {
    if (!live) return held.push(d);
    out(d);
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop() ?? "";
    last = lines.filter((l) => l.trim() !== "").pop() ?? last;
  });
  if (!live) child.stderr.on("data", (d) => held.push(d));
  return new Promise((resolve) => {
    const end = (code, why) => {
      children.delete(child);
      if (partial.trim() !== "") last = partial;
      const status = code === 0 ? "ok" : `FAILED (${why})`;
      if (!live && (held.length > 0 || code !== 0)) out(`\n--- ${name}: ${status}\n${Buffer.concat(held)}`);
      resolve({ name, ok: code === 0, text: `${name} ${status} in ${seconds(t0)} s`, last });
    };
    child.on("error", (e) => end(1, e.message));
    child.on("close", (code, signal) => end(code ?? 1, signal ? `killed by ${signal}` : `exit ${code}`));
  });
}

/**
 * Runs `checks` ([name, command line] pairs) at once, the first live, and waits for every one: a failure never
 * stops the others, so one run reports every problem. Resolves to whether all passed and the closing line: mocha's
 * totals first when the live check printed them last (what a CI reader matches), then each check's status and time.
 */
export async function runChecks(checks, out = (s) => process.stdout.write(s)) {
  const started = Date.now();
  const results = await Promise.all(checks.map(([name, command], i) => run(name, command, i === 0, out)));
  const totals = TOTALS.test(results[0].last) ? `${results[0].last}; ` : "";
  const line = `${totals}${results.map((r) => r.text).join(", ")}; ${seconds(started)} s wall on ${cores} cores`;
  return { ok: results.every((r) => r.ok), line };
}

/**
 * The checks named first on the command line, at once; what follows them goes to the specs check. Exits 0 when
 * every one passed, 1 when one failed, 2 on a bad command line.
 */
async function main(argv) {
  const first = argv.findIndex((a) => !(a in CHECKS));
  const names = first < 0 ? argv : argv.slice(0, first);
  const extra = first < 0 ? [] : argv.slice(first);
  const unknown = extra.length > 0 && !names.includes("specs") ? [extra[0]] : [];
  if (names.length === 0 || unknown.length > 0) {
    const bad = unknown.length > 0 ? `unknown check ${unknown.map((n) => JSON.stringify(n)).join(", ")}; ` : "";
    process.stderr.write(`side-by-side: ${bad}name one or more of: ${Object.keys(CHECKS).join(", ")}\n`);
    process.exit(2);
  }
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      for (const c of children) c.kill(signal);
      process.exit(130);
    });
  const { ok, line } = await runChecks(names.map((n) => [n, commandOf(n, extra)]));
  process.stdout.write(`\n${line}\n`);
  process.exit(ok ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main(process.argv.slice(2));
