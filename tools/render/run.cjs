#!/usr/bin/env node
// `npm run render`: runs the render from one bundled CommonJS file, built from tools/render/cli/cli.ts with esbuild
// when any TypeScript source is newer than the bundle. Why: the render under tsx spent most of its time loading
// (tsx resolves and inspects every one of the Pulumi SDK's thousands of files, and transpiles and source-maps ours);
// one bundle of our code, with node_modules left as plain requires, starts in a fraction of that (bench/render.ts).
// The tests and the other tools still run the TypeScript through tsx. The bundle lives in node_modules/.cache, so
// `npm ci` drops it. Plain JavaScript so that it starts without tsx.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const BUNDLE = path.join(ROOT, "node_modules", ".cache", "dynamo-efa", "render.cjs");
/** What the bundle is built from: every folder of our TypeScript (and the JSON it imports). */
const SOURCES = ["components", "program", "policy", "serving", "tools"];

/** esbuild's arguments: our code in one file, every package left to node (`--packages=external`). */
const BUILD = [
  path.join(ROOT, "tools", "render", "cli", "cli.ts"),
  "--bundle",
  "--platform=node",
  "--packages=external",
  "--format=cjs",
  "--target=node20",
  "--sourcemap",
  `--outfile=${BUNDLE}`,
  "--log-level=warning",
];

/** The newest modification time of a .ts or .json file under `dir`, in ms. */
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|json)$/.test(e.name)) t = Math.max(t, fs.statSync(p).mtimeMs);
  }
  return t;
}

const built = fs.existsSync(BUNDLE) ? fs.statSync(BUNDLE).mtimeMs : 0;
if (SOURCES.some((d) => newest(path.join(ROOT, d)) > built)) {
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
  execFileSync(path.join(ROOT, "node_modules", ".bin", "esbuild"), BUILD, { stdio: "inherit" });
}
require(BUNDLE).runProcess(process.argv.slice(2));
