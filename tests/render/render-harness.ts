/**
 * The render CLI in-process for the robustness and stack tests: one run with its exit code and output,
 * with the real program or a one-resource one where the real one is not needed (the config is still
 * checked by the real schema), stack files edited from the 1-GPU stack, and the files of a render.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { CliDeps, defaultDeps, runCli } from "../../tools/render/cli/cli";
import type { RenderFacts } from "../../program/run";

export const ROOT = path.join(__dirname, "..", "..");
/** The render CLI's entry, for the tests that run it as a child process. */
export const RENDER_CLI = path.join(ROOT, "tools", "render", "cli", "cli.ts");
/** A line of a JavaScript stack trace: never shown to a user. */
export const STACK_TRACE = /^\s+at .+(\(|:\d+:\d+)/m;
export const STACK_1 = path.join(ROOT, "stacks", "Pulumi.p5en-1gpu.yaml");
export const STACK_1_TEXT = fs.readFileSync(STACK_1, "utf8");

/** One render: exit code, stdout and stderr (lines joined). */
export interface Run {
  code: number;
  out: string;
  err: string;
}

/** A program of one component: enough for the CLI's checks, locking and writing, in a fraction of the time. */
export function tinyProgram(): { exports: Record<string, unknown>; result: RenderFacts } {
  new pulumi.ComponentResource("fixture:index:Thing", "thing");
  return {
    exports: {},
    result: {
      kind: "whole",
      region: "us-east-2",
      gpuPools: [],
      image: { cudaArchs: ["sm_90"], cudaToolkit: "12.9", build: false },
    },
  };
}

/** Runs the CLI in-process with the tiny program (unless `over` says otherwise); fails on a stack trace. */
export async function run(argv: string[], over: Partial<CliDeps> = {}): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    ...defaultDeps(),
    program: tinyProgram,
    cwd: ROOT,
    stdout: (l) => stdout.push(l),
    stderr: (l) => stderr.push(l),
    ...over,
  });
  const r = { code, out: stdout.join("\n"), err: stderr.join("\n") };
  assert.doesNotMatch(r.err, STACK_TRACE, "a stack trace was printed");
  return r;
}

/** A stack file: the 1-GPU stack with `edit` applied to its text. */
export function stackFileWith(dir: string, name: string, edit: (text: string) => string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, edit(STACK_1_TEXT));
  return file;
}

/** Every file under `dir` with its bytes (for "unchanged" checks). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** A render of the real program: exit code, the stack's output directory, its output lines. */
export interface Rendered {
  readonly code: number;
  readonly dir: string;
  readonly stdout: string[];
  readonly stderr: string[];
}

/** Renders `stack` into `out` with the real program and policy pack. */
export async function renderStack(stack: string, out: string, extra: string[] = []): Promise<Rendered> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const deps: CliDeps = { ...defaultDeps(), stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l) };
  const code = await runCli([stack, "--out", out, ...extra], deps);
  return { code, dir: path.join(out, stack), stdout, stderr };
}

/** Every file under `dir`, relative, sorted (directories walked in name order). */
export function files(dir: string, sub = ""): string[] {
  const here = path.join(dir, sub);
  return fs
    .readdirSync(here)
    .sort()
    .flatMap((f) =>
      fs.statSync(path.join(here, f)).isDirectory() ? files(dir, path.join(sub, f)) : [path.join(sub, f)],
    );
}

/** A JSON file of a render, parsed. */
export const readJson = (dir: string, f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
