/**
 * Extracts how vLLM's NixlConnector picks its side-channel port: the env var it starts from and the offset it adds
 * (the handshake listener binds that TCP port). Usage:
 * npx tsx tests/contracts/extract/vllm-nixl-side-channel.ts <vllm checkout> --ref <tag> [--commit <sha>] [--notes <text>]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { checkoutArgs, printFacts, readText, today } from "./_checkout";

/** The connector before and after vLLM split it into a package. */
export const PATHS = [
  "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
  "vllm/distributed/kv_transfer/kv_connector/v1/nixl/scheduler.py",
];

export function extract(root: string): { path: string; facts: Record<string, string> } {
  const path = PATHS.find((p) => existsSync(join(root, p)));
  if (!path) throw new Error(`none of ${PATHS.join(", ")} in ${root}`);
  const text = readText(root, path);
  const m =
    /self\.side_channel_port\s*=\s*\(?\s*envs\.(VLLM_NIXL_SIDE_CHANNEL_PORT)\s*\+\s*vllm_config\.parallel_config\.(\w+)/.exec(
      text,
    );
  if (!m) throw new Error(`${path}: side_channel_port assignment not found`);
  const host = /self\.side_channel_host\s*=\s*envs\.(\w+)/.exec(text);
  return {
    path,
    facts: { portVariable: m[1], hostVariable: host ? host[1] : "", offset: m[2], protocol: "TCP" },
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "vllm-nixl-side-channel.ts");
  const { path, facts } = extract(a.root);
  printFacts(
    {
      repository: "vllm-project/vllm",
      ref: a.ref,
      commit: a.commit,
      paths: [path],
      extracted: today(),
      extractor: "tests/contracts/extract/vllm-nixl-side-channel.ts",
      notes: a.notes ?? "",
    },
    facts,
  );
}
