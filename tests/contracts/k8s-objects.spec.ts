/**
 * Every plain Kubernetes object the graph renders (namespace, secret, ConfigMaps, PVC, the internal load balancer,
 * the NetworkPolicies generated from the release's flows, the prefetch DaemonSet, the first-token check's ConfigMap
 * and Job) against the Kubernetes API's types as @kubernetes/client-node generates them (tests/helpers/k8s-shape.ts):
 * no field the API does not have, no value of the wrong JSON type. Both releases, both backends, both shapes, with
 * the local-NVMe cache, the internal load balancer and the KV router where a release offers it. The graph itself is
 * held to its CRD elsewhere (tests/contracts/dgd-crd.spec.ts, dgd-v1beta1.spec.ts).
 */
import { strict as assert } from "assert";
import { Backend, InferenceSettings } from "../../components/inference/args";
import { renderInference } from "../../components/inference/render";
import { renderPrefetchDaemonSet } from "../../components/inference/cache";
import { release, ReleaseId, RELEASES } from "../../components/releases";
import { pool, resolved, Variant } from "../helpers/inference-fixtures";
import { shapeProblems } from "../helpers/k8s-shape";

type K8sObject = Parameters<typeof shapeProblems>[0];

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const OPTIONS: [string, Partial<InferenceSettings>][] = [
  ["defaults", {}],
  ["local-nvme", { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) }],
  [
    "internal load balancer, client and metrics namespaces",
    {
      vpcCidr: "10.0.0.0/16",
      frontend: { serviceType: "InternalLoadBalancer" },
      networkPolicy: { clientNamespaces: ["apps"], metricsNamespaces: ["monitoring"] },
    },
  ],
  ["router-mode kv", { frontend: { routerMode: "kv" } }],
];

/** The plain objects of one rendered graph. */
function objects(over: Partial<InferenceSettings>, variant: Variant, backend: Backend): K8sObject[] {
  const r = resolved(variant, backend, over);
  const g = renderInference(r);
  return [
    g.namespace,
    g.hfSecret,
    g.modelCachePvc,
    ...g.engineConfigMaps,
    g.frontendLoadBalancer,
    ...g.networkPolicies,
    g.firstTokenCheck?.configMap,
    g.firstTokenCheck?.job,
    renderPrefetchDaemonSet(r),
  ].filter((o): o is NonNullable<typeof o> => o !== undefined) as K8sObject[];
}

describe("contracts: the graph's plain Kubernetes objects have the API's fields and types (@kubernetes/client-node)", () => {
  for (const rel of Object.keys(RELEASES) as ReleaseId[])
    for (const variant of ["p5en-1gpu", "p5en-8x1gpu"] as Variant[])
      for (const backend of ["vllm", "trtllm"] as Backend[])
        for (const [label, over] of OPTIONS) {
          if (over.frontend?.routerMode && !release(rel).runtime.routerModes.modes.includes(over.frontend.routerMode))
            continue;
          it(`${rel} ${variant} ${backend} ${label}`, () => {
            const all = objects({ ...over, release: rel }, variant, backend);
            const kinds = new Set(all.map((o) => o.kind));
            assert.ok(kinds.has("Job") && kinds.has("NetworkPolicy") && kinds.has("ConfigMap"), [...kinds].join());
            if (label === "local-nvme") assert.ok(kinds.has("DaemonSet"), "the prefetch DaemonSet");
            if (over.frontend?.serviceType === "InternalLoadBalancer") assert.ok(kinds.has("Service"));
            assert.deepEqual(all.flatMap(shapeProblems), []);
          });
        }

  it("names a field the API does not have, a value of the wrong type, and a kind it does not know", () => {
    const job = objects({}, "p5en-1gpu", "vllm").find((o) => o.kind === "Job") as unknown as {
      spec: { backoffLimit: unknown; template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const typo = structuredClone(job);
    typo.spec.template.spec.containers[0].terminationMessagePolicyy = "FallbackToLogsOnError";
    const wrongType = structuredClone(job);
    wrongType.spec.backoffLimit = "0";
    const port = { ...structuredClone(job) };
    (port.spec.template.spec.containers[0] as { ports?: unknown }).ports = [{ containerPort: { n: 1 } }];
    assert.match(
      shapeProblems(typo as unknown as K8sObject).join("\n"),
      /containers\[0\]\.terminationMessagePolicyy: not a field of V1Container/,
    );
    assert.match(shapeProblems(wrongType as unknown as K8sObject).join("\n"), /backoffLimit: a number, got "0"/);
    assert.match(shapeProblems(port as unknown as K8sObject).join("\n"), /containerPort: a number/);
    assert.match(
      shapeProblems({ apiVersion: "v9", kind: "Thing", metadata: { name: "x" } }).join(""),
      /not a kind this check knows/,
    );
  });
});
