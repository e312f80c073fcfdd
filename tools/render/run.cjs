/**
 * `npm run render`: runs the render from one bundled CommonJS file, built from tools/render/cli/cli.ts with esbuild.
 * Why: the render under tsx spent most of its time loading (tsx resolves and inspects every one of the Pulumi SDK's
 * thousands of files, and transpiles and source-maps ours); one bundle of our code, with node_modules left as plain
 * requires, starts in a fraction of that (bench/render.ts). The tests and the other tools still run the TypeScript
 * through tsx. The bundle lives in node_modules/.cache (ignored by git; `npm ci` drops it), so a fresh clone builds
 * it on its first render.
 * When to rebuild is decided by content, not by modification times: git, cp -p, tar and rsync set those arbitrarily,
 * so "a source is newer than the bundle" can serve stale code. Beside the bundle, a stamp holds the hash of every
 * file esbuild read (its metafile's inputs) with esbuild's version and arguments; any difference rebuilds. A build
 * writes into a directory of its own and renames into place, so renders running at once never read half a bundle.
 * Plain JavaScript so that it starts without tsx.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const CACHE = path.join(ROOT, "node_modules", ".cache");
const DIR = path.join(CACHE, "dynamo-efa");
const [BUNDLE, STAMP] = [path.join(DIR, "render.cjs"), path.join(DIR, "render.stamp.json")];
const ESBUILD = path.join(ROOT, "node_modules", "esbuild");

/** esbuild's arguments: our code in one file, every package left to node (`--packages=external`). */
const buildArgs = (outdir) => [
  path.join(ROOT, "tools", "render", "cli", "cli.ts"),
  "--bundle",
  "--platform=node",
  "--packages=external",
  "--format=cjs",
  "--target=node20",
  "--sourcemap",
  `--outfile=${path.join(outdir, "render.cjs")}`,
  `--metafile=${path.join(outdir, "meta.json")}`,
  "--log-level=warning",
];

/** One hash over esbuild's version, its arguments (less the output folder) and every input file's path and bytes. */
function hashOf(inputs) {
  const h = crypto.createHash("sha256");
  h.update(require(path.join(ESBUILD, "package.json")).version);
  h.update(JSON.stringify(buildArgs("OUT")));
  for (const f of inputs) h.update(`\0${f}\0`).update(fs.readFileSync(path.join(ROOT, f)));
  return h.digest("hex");
}

/** Whether the bundle was built from the files as they are now (false when any input changed or is gone). */
function current() {
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP, "utf8"));
    return fs.existsSync(BUNDLE) && hashOf(stamp.inputs) === stamp.hash;
  } catch {
    return false;
  }
}

/** Builds into a folder of this process, beside the cache's (so the source map's relative paths hold), then renames. */
function build() {
  const tmp = path.join(CACHE, `dynamo-efa.${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fs.mkdirSync(DIR, { recursive: true });
  try {
    execFileSync(path.join(ROOT, "node_modules", ".bin", "esbuild"), buildArgs(tmp), { cwd: ROOT, stdio: "inherit" });
    const inputs = Object.keys(JSON.parse(fs.readFileSync(path.join(tmp, "meta.json"), "utf8")).inputs).sort();
    fs.writeFileSync(path.join(tmp, "stamp.json"), JSON.stringify({ hash: hashOf(inputs), inputs }));
    fs.renameSync(path.join(tmp, "render.cjs.map"), `${BUNDLE}.map`);
    fs.renameSync(path.join(tmp, "render.cjs"), BUNDLE);
    fs.renameSync(path.join(tmp, "stamp.json"), STAMP);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (!current()) build();
require(BUNDLE).runProcess(process.argv.slice(2));
