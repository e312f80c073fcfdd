/**
 * Extracts the engine pins of ai-dynamo/dynamo's `pyproject.toml` at a checkout's HEAD:
 *   npx tsx tests/contracts/extract/dynamo-pyproject.ts /path/to/dynamo > tests/contracts/facts/dynamo-pyproject.json
 * (a bare mirror works too: `git --git-dir=<mirror> --work-tree=<dir> checkout <commit> -- pyproject.toml` first and
 * pass `--commit <commit>`). Reads only the `[project.optional-dependencies]` pins the image depends on.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `name==version` (extras and markers stripped) of every quoted requirement in a TOML array block. */
export function pinsOf(toml: string, group: string): Record<string, string> {
  const block = new RegExp(`^${group}\\s*=\\s*\\[([\\s\\S]*?)^\\]`, "m").exec(toml)?.[1] ?? "";
  const out: Record<string, string> = {};
  for (const m of block.matchAll(/^\s*"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*(==|<=|>=)\s*([^";\s]+)"/gm))
    out[m[1]] = `${m[2] === "==" ? "" : m[2]}${m[3]}`;
  return out;
}

/** The project version (`[project] version = "..."`). */
export function projectVersion(toml: string): string | undefined {
  return /^version\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
}

const NOTES =
  "f2fd3a16e (#7526, 2026-03-19) is the parent of ba3aef8ae (#7504, TRT-LLM -> 1.3.0rc8): the last main commit " +
  "with tensorrt-llm==1.3.0rc7 (since 10e5a4922, #7408) and vllm==0.17.1 (since dba69e0f2, #7170; vLLM 0.18.0 follows in " +
  "3a1561fb4). Read from a fetched mirror carrying main history (zinuga/dynamo), commit and parent verified with git.";

function main(argv: string[]): void {
  const dir = argv[0];
  const commitFlag = argv.indexOf("--commit");
  const commit =
    commitFlag >= 0
      ? argv[commitFlag + 1]
      : execFileSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const toml = readFileSync(join(dir, "pyproject.toml"), "utf8");
  const facts = { projectVersion: projectVersion(toml), trtllm: pinsOf(toml, "trtllm"), vllm: pinsOf(toml, "vllm") };
  const provenance = {
    repository: "ai-dynamo/dynamo",
    ref: "main (parent of ba3aef8ae)",
    commit,
    paths: ["pyproject.toml"],
    extracted: new Date().toISOString().slice(0, 10),
    extractor: "tests/contracts/extract/dynamo-pyproject.ts",
    notes: NOTES,
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts }, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
