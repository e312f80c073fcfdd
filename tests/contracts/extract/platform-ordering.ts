/**
 * Extracts what the `dynamo-platform` chart's install needs from the cluster before it can succeed: the Jobs it
 * runs as pre-install hooks (each needs a schedulable node; Helm waits for them within the release's timeout) and
 * the NATS JetStream volume claim its values ask for (no class named: it binds through the default StorageClass,
 * which needs the EBS CSI driver). Each with the `path:line` it was read at.
 * Usage: npx tsx tests/contracts/extract/platform-ordering.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>] [--notes <text>]
 */
import YAML from "yaml";
import { checkoutArgs, filesUnder, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = {
  templates: "deploy/helm/charts/platform/components/operator/templates",
  values: "deploy/helm/charts/platform/values.yaml",
} as const;

const must = matcher("platform-ordering");

/** `path:line` of every Job document whose hook annotation includes pre-install. */
function preInstallJobs(root: string): string[] {
  const out: string[] = [];
  for (const path of filesUnder(root, PATHS.templates, /\.yaml$/)) {
    const lines = readText(root, path).split("\n");
    let kind = "";
    lines.forEach((line, i) => {
      if (/^---/.test(line)) kind = "";
      const k = /^kind:\s*(\w+)/.exec(line);
      if (k) kind = k[1];
      if (kind === "Job" && /^\s+"?helm\.sh\/hook"?:\s*.*pre-install/.test(line)) out.push(`${path}:${i + 1}`);
    });
  }
  return out;
}

/** The NATS JetStream file-store claim the chart's values ask for. */
function natsClaim(root: string): Record<string, unknown> {
  const text = readText(root, PATHS.values);
  const pvc = YAML.parse(text).nats?.config?.jetstream?.fileStore?.pvc;
  if (!pvc) throw new Error("platform-ordering extractor: nats.config.jetstream.fileStore.pvc not found");
  const at = must(/\n(\s+)pvc:\s*\n(?:\1\s+.*\n)*?\1\s+enabled:/, text, "the fileStore pvc block");
  return {
    enabled: pvc.enabled === true,
    size: pvc.size,
    storageClassName: pvc.storageClassName ?? null,
    at: `${PATHS.values}:${text.slice(0, at.index + 1).split("\n").length}`,
  };
}

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  return { preInstallHookJobs: preInstallJobs(root), natsJetStreamClaim: natsClaim(root) };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "platform-ordering.ts");
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: a.ref,
      commit: a.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/platform-ordering.ts",
      notes: withNotes("", a),
    },
    extract(a.root),
  );
}
