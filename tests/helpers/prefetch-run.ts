/**
 * Runs the prefetch script (components/inference/prefetch/prefetch.py) as the cluster does, with python3, against a
 * fake hub (./fake-hf.ts), for tests/unit/prefetch*.spec.ts: the environment the init container gets, an optional
 * file-size limit (RLIMIT_FSIZE: a write past it fails as on a full disk), and what the run left in the cache.
 */
import { strict as assert } from "assert";
import { ChildProcess, spawn, spawnSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { completionMarker, modelCacheDir } from "../../components/inference/cache";
import { Fake, FILES, MODEL, SHA } from "./fake-hf";

export const SCRIPT = path.join(__dirname, "..", "..", "components", "inference", "prefetch", "prefetch.py");

/** A run in progress: the child, and its exit code and stderr when it ends. */
export interface Run {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; stderr: string }>;
}

/** Options of one run besides its environment. */
export interface RunOptions {
  /** RLIMIT_FSIZE in bytes: writing a file past it fails with EFBIG, as a full disk fails with ENOSPC. */
  readonly fileSizeLimit?: number;
}

/** Starts the script on `root` against `hf`, with a short backoff; `extra` overrides any variable. */
export function run(root: string, hf: Fake, extra: Record<string, string> = {}, o: RunOptions = {}): Run {
  const argv =
    o.fileSizeLimit === undefined
      ? [SCRIPT]
      : [
          "-c",
          "import resource, runpy, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_FSIZE, (n, n)); " +
            "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')",
          String(o.fileSizeLimit),
          SCRIPT,
        ];
  const child = spawn("python3", argv, {
    env: {
      PATH: process.env.PATH ?? "",
      MODEL_ID: MODEL,
      CACHE_ROOT: root,
      HF_ENDPOINT: hf.url,
      HF_TOKEN: hf.token,
      RETRY_BASE_SECONDS: "0.01",
      DOWNLOAD_BUDGET_SECONDS: "600",
      ...extra,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  return { child, done: new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr }))) };
}

/** Skips the suite, with the reason printed, where python3 is missing (`what` needs it). */
export function needPython(ctx: Mocha.Context, what = "the prefetch script"): void {
  const probe = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    console.log(
      `      skipped: python3 is not available here (${probe.error?.message ?? probe.stderr}); ${what} needs it`,
    );
    ctx.skip();
  }
}

/** The final directory of the model revision in `root`. */
export const finalDir = (root: string, revision = "main") => modelCacheDir(root, MODEL, revision);

/** The completion marker the script wrote for the revision, parsed (throws when there is none). */
export function marker(
  root: string,
  revision = "main",
): {
  model: string;
  revision: string;
  sha: string;
  files: Record<string, { size: number; algorithm: string; digest: string }>;
} {
  return JSON.parse(fs.readFileSync(completionMarker(root, MODEL, revision), "utf8"));
}

/** The default revision is complete: the marker names the three model files, each byte-identical on disk. */
export function assertComplete(root: string, revision = "main"): void {
  const dir = finalDir(root, revision);
  const m = marker(root, revision);
  const names = ["config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"];
  assert.deepEqual([m.model, m.sha, Object.keys(m.files).sort()], [MODEL, SHA, names]);
  for (const name of names) {
    assert.ok(fs.readFileSync(path.join(dir, name)).equals(FILES[name]), `${name} is byte-identical`);
    assert.equal(m.files[name].size, FILES[name].length);
  }
  assert.equal(
    fs.existsSync(path.join(dir, "original")),
    false,
    "Meta's consolidated checkpoint is skipped when safetensors exist",
  );
}

/** Every entry under `dir` (links not followed) with its kind and, for a file, its content's sha256. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `link -> ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = "dir";
        walk(p, r);
      } else out[r] = createHash("sha256").update(fs.readFileSync(p)).digest("hex");
    }
  };
  walk(dir, "");
  return out;
}
