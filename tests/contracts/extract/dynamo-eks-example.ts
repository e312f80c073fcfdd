/**
 * Extracts the worker isolation facts of upstream Dynamo's EKS EFA example
 * (`examples/deployments/EKS/manifests/vllm/disagg-p5.yaml`): per worker service its GPUs, EFA devices,
 * replicas, instance type, NIXL backends, `privileged`, `hostNetwork` and added capabilities.
 * Usage: npx tsx tests/contracts/extract/dynamo-eks-example.ts <ai-dynamo/dynamo checkout> --ref main [--commit <sha>] > tests/contracts/facts/dynamo-eks-example.json
 */
import YAML from "yaml";
import { checkoutArgs, printFacts, readText, today } from "./_checkout";

const FILE = "examples/deployments/EKS/manifests/vllm/disagg-p5.yaml";

/** The backends named in a `--kv-transfer-config '<json>'` inside a shell command. */
function backends(command: readonly string[]): string[] {
  const m = /--kv-transfer-config\s+'([^']+)'/.exec(command.join(" "));
  return m ? (JSON.parse(m[1]).kv_connector_extra_config?.backends ?? []) : [];
}

/** The fields of one service of upstream's DynamoGraphDeployment that the facts are read from. */
interface UpstreamService {
  readonly componentType?: string;
  readonly replicas?: number;
  readonly resources: {
    readonly limits: { readonly gpu: string | number; readonly custom?: Readonly<Record<string, string | number>> };
  };
  readonly extraPodSpec?: {
    readonly hostNetwork?: boolean;
    readonly nodeSelector?: Readonly<Record<string, string>>;
    readonly mainContainer?: {
      readonly command?: readonly string[];
      readonly securityContext?: { readonly privileged?: boolean; readonly capabilities?: { readonly add?: string[] } };
    };
  };
}

export function extract(doc: {
  readonly spec: { readonly services: Readonly<Record<string, UpstreamService>> };
}): Record<string, unknown> {
  const workers = Object.entries(doc.spec.services)
    .filter(([, s]) => s.componentType === "worker")
    .map(([service, s]) => {
      const main = s.extraPodSpec?.mainContainer ?? {};
      return {
        service,
        replicas: s.replicas,
        gpusPerWorker: Number(s.resources.limits.gpu),
        efaPerWorker: Number(s.resources.limits.custom?.["vpc.amazonaws.com/efa"] ?? 0),
        instanceType: s.extraPodSpec?.nodeSelector?.["node.kubernetes.io/instance-type"],
        nixlBackends: backends(main.command ?? []),
        privileged: main.securityContext?.privileged === true,
        hostNetwork: s.extraPodSpec?.hostNetwork === true,
        capabilitiesAdd: main.securityContext?.capabilities?.add ?? [],
      };
    });
  return { workers };
}

if (require.main === module) {
  const args = checkoutArgs(process.argv.slice(2), "dynamo-eks-example.ts");
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: args.ref,
      commit: args.commit,
      paths: [FILE],
      extracted: today(),
      extractor: "tests/contracts/extract/dynamo-eks-example.ts",
      ...(args.notes ? { notes: args.notes } : {}),
    },
    extract(YAML.parse(readText(args.root, FILE))),
  );
}
