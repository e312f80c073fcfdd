/**
 * Extracts `supported_arches` of `_get_cuda_arch_flags` from a pytorch/pytorch checkout:
 *   npx tsx tests/contracts/extract/torch-cuda-archs.ts /path/to/pytorch --ref v2.10.0 [--commit <sha>] \
 *     > tests/contracts/facts/torch-cuda-archs.json
 * The list is what torch's extension builder accepts in TORCH_CUDA_ARCH_LIST (each also with "+PTX").
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const CPP_EXTENSION = "torch/utils/cpp_extension.py";

/** The quoted entries of `supported_arches = [...]` in cpp_extension.py's text. */
export function supportedArches(source: string): string[] {
  const body = /supported_arches\s*=\s*\[([\s\S]*?)\]/.exec(source)?.[1];
  if (body === undefined) throw new Error(`no supported_arches list in ${CPP_EXTENSION}`);
  return [...body.matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function main(argv: string[]): void {
  const dir = argv[0];
  const commit =
    flag(argv, "--commit") ?? execFileSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const provenance = {
    repository: "pytorch/pytorch",
    ref: flag(argv, "--ref") ?? commit,
    commit,
    paths: [CPP_EXTENSION],
    extracted: new Date().toISOString().slice(0, 10),
    extractor: "tests/contracts/extract/torch-cuda-archs.ts",
    notes: flag(argv, "--notes") ?? "",
  };
  const facts = {
    torch: flag(argv, "--torch") ?? "",
    supportedArches: supportedArches(readFileSync(join(dir, CPP_EXTENSION), "utf8")),
  };
  process.stdout.write(`${JSON.stringify({ provenance, facts }, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
