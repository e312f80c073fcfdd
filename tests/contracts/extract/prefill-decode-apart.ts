/**
 * Extracts where the field's working 1-GPU disaggregated graph puts prefill and decode
 * (awsome-inference `2.projects/dynamo-inference/k8s/dynamo-combined-disagg-1gpu.yaml`: two Pods) and what
 * Dynamo's disaggregation communication guide says about them sharing a node over EFA (its EAGAIN section).
 * Usage: npx tsx tests/contracts/extract/prefill-decode-apart.ts <field yaml> <guide markdown>
 * (prints the `facts` block; the provenance is written by hand: the two files come from two repositories).
 */
import { readFileSync } from "node:fs";
import YAML from "yaml";

interface FieldPod {
  readonly metadata: { readonly labels?: Readonly<Record<string, string>> };
  readonly spec: {
    readonly nodeSelector?: Readonly<Record<string, string>>;
    readonly affinity?: {
      readonly podAntiAffinity?: Readonly<
        Record<string, readonly { labelSelector: { matchLabels: Record<string, string> }; topologyKey: string }[]>
      >;
    };
    readonly containers: readonly {
      readonly args?: readonly string[];
      readonly resources: { limits: Record<string, string> };
    }[];
  };
}

const roleOf = (p: FieldPod) =>
  /--disaggregation-mode (prefill|decode)/.exec((p.spec.containers[0].args ?? []).join(" "))?.[1];

/** The field's layout: instance type, nodes (one per Pod, kept apart), GPUs and EFA per role, the anti-affinity. */
export function extractField(yaml: string): Record<string, unknown> {
  const pods = YAML.parseAllDocuments(yaml)
    .map((d) => d.toJSON() as FieldPod | null)
    .filter((p): p is FieldPod => !!p?.spec);
  const by = (role: string) => pods.find((p) => roleOf(p) === role)!;
  const limit = (role: string, key: string) => Number(by(role).spec.containers[0].resources.limits[key]);
  const withRule = pods.find((p) => p.spec.affinity?.podAntiAffinity)!;
  const [mode, terms] = Object.entries(withRule.spec.affinity!.podAntiAffinity!)[0];
  const selected = pods.find((p) =>
    Object.entries(terms[0].labelSelector.matchLabels).every(([k, v]) => p.metadata.labels?.[k] === v),
  )!;
  return {
    instanceType: by("prefill").spec.nodeSelector?.["node.kubernetes.io/instance-type"],
    nodes: pods.length,
    gpusPerWorker: { prefill: limit("prefill", "nvidia.com/gpu"), decode: limit("decode", "nvidia.com/gpu") },
    efaPerWorker: {
      prefill: limit("prefill", "vpc.amazonaws.com/efa"),
      decode: limit("decode", "vpc.amazonaws.com/efa"),
    },
    antiAffinity: { on: roleOf(withRule), selects: roleOf(selected), mode, topologyKey: terms[0].topologyKey },
  };
}

/** The guide's EAGAIN section: the first symptom line and the anti-affinity it prescribes. */
export function extractGuide(md: string): Record<string, unknown> {
  const section = md.slice(md.indexOf("### Problem: EFA EAGAIN"));
  const symptom = /```text\n([^\n]+)\n/.exec(section)?.[1];
  const rootCause = /\*\*Root Cause\*\*: (.+)/.exec(section)?.[1].replace(/\*\*/g, "");
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const rule = YAML.parse(yaml).decode.extraPodSpec.affinity.podAntiAffinity;
  const [mode, terms] = Object.entries(rule)[0] as [
    string,
    { labelSelector: { matchExpressions: { key: string }[] }; topologyKey: string }[],
  ];
  return {
    symptom,
    rootCause,
    antiAffinity: { mode, labelKey: terms[0].labelSelector.matchExpressions[0].key, topologyKey: terms[0].topologyKey },
  };
}

if (require.main === module) {
  const [field, guide] = process.argv.slice(2);
  if (!field || !guide) {
    process.stderr.write("usage: prefill-decode-apart.ts <field yaml> <guide markdown>\n");
    process.exit(2);
  }
  const facts = {
    field: extractField(readFileSync(field, "utf8")),
    dynamoGuide: extractGuide(readFileSync(guide, "utf8")),
  };
  process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
}
