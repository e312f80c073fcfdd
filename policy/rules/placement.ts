/**
 * Policies on where prefill and decode workers land: never on one node while KV moves over EFA (Dynamo's
 * disaggregation communication guide reports `fi_read ... EAGAIN` when they share a node, and the field's
 * working 1-GPU graph puts them on two nodes; tests/contracts/facts/prefill-decode-apart.json), and no GPU
 * node the graph leaves idle (billed, running nothing).
 */
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { INSTANCES } from "../../components/catalog/instances";
import { dgdPolicy, schemaFor } from "./_policy";
import { GraphService, gpusOf, instanceTypeOf, rawPropsOf, requestsEfa, workers } from "./_predicates";
import { isUnknownValue } from "./_unknowns";
import { ofType } from "./_stack";
import { OperatorLabel } from "../../components/_shared/names";
import { POOL_LABEL } from "../../components/catalog/pool";
import { ResourceType } from "./_resources";
import { show } from "../../components/_shared/problems";

/** The node-level topology key. */
const HOSTNAME = "kubernetes.io/hostname";

/** True when `w`'s required pod anti-affinity keeps it off every node holding service `other` (hostname). */
export function avoidsOnNode(w: GraphService, other: string): boolean {
  const terms = w.svc?.extraPodSpec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  return terms.some((t) => {
    if (t?.topologyKey !== HOSTNAME) return false;
    const sel = t.labelSelector;
    if (sel?.matchLabels?.[OperatorLabel.Component] === other) return true;
    return (sel?.matchExpressions ?? []).some(
      (e) => e?.key === OperatorLabel.Component && e.operator === "In" && (e.values ?? []).includes(other),
    );
  });
}

const roleOf = (w: GraphService) => String(w.svc?.subComponentType ?? "");

/** 25. Over EFA, every prefill/decode pair is kept on different nodes by a required hostname anti-affinity. */
export const prefillDecodeApartOverEfa = dgdPolicy({
  name: "prefill-decode-apart-over-efa",
  description:
    "When workers move KV over EFA, a required pod anti-affinity on kubernetes.io/hostname keeps every prefill worker off the nodes of every decode worker (EFA between two pods of one node fails with EAGAIN).",
  defaults: {},
  check: (props, args, report) => {
    const ws = workers(props, args.name);
    if (!ws.some((w) => requestsEfa(w.svc))) return;
    for (const p of ws.filter((w) => roleOf(w) === "prefill"))
      for (const d of ws.filter((w) => roleOf(w) === "decode")) {
        if (avoidsOnNode(p, d.key) || avoidsOnNode(d, p.key)) continue;
        report(
          `${p.label} and service ${show(d.key)} can land on one node while KV moves over EFA, where NIXL's transfers fail with "fi_read still retrying EAGAIN" (Dynamo disaggregation communication guide); add a required podAntiAffinity with topologyKey ${HOSTNAME} selecting ${OperatorLabel.Component}=${d.key} (placement "separate-nodes" renders it) on at least 2 GPU nodes, or move KV over UCX`,
        );
      }
  },
});

interface GpuGroup {
  readonly ng: PolicyResource;
  readonly type: string;
  readonly gpusPerNode: number;
  readonly nodes: number;
  readonly pool: string | undefined;
}

function gpuNodeGroups(resources: readonly PolicyResource[]): GpuGroup[] {
  const out: GpuGroup[] = [];
  for (const ng of ofType(resources, ResourceType.NodeGroup)) {
    const props = rawPropsOf(ng, ResourceType.NodeGroup);
    const lts = (ng.propertyDependencies?.launchTemplate ?? []).filter((d) => d.type === ResourceType.LaunchTemplate);
    const types = [
      ...(props?.instanceTypes ?? []),
      ...lts.map((lt) => rawPropsOf(lt, ResourceType.LaunchTemplate)?.instanceType),
    ];
    const row = types.map((t) => (typeof t === "string" ? INSTANCES.get(t) : undefined)).find((r) => r);
    const size = props?.scalingConfig?.desiredSize;
    if (!row || row.gpuCount === 0 || typeof size !== "number") continue;
    const pool = props?.labels?.[POOL_LABEL];
    out.push({
      ng,
      type: row.name,
      gpusPerNode: row.gpuCount,
      nodes: size,
      pool: typeof pool === "string" ? pool : undefined,
    });
  }
  return out;
}

/** Nodes the workers pinned to `g` fill: whole nodes per role when the roles avoid each other, else by GPUs. */
function nodesFilled(g: GpuGroup, ws: readonly GraphService[]): { nodes: number; how: string } {
  const mine = ws.filter(
    (w) =>
      instanceTypeOf(w.svc) === g.type &&
      (g.pool === undefined || w.svc?.extraPodSpec?.nodeSelector?.[POOL_LABEL] === g.pool) &&
      gpusOf(w.svc) > 0,
  );
  // A worker pinned here whose GPUs are not in Dynamo form counts 0 GPUs: efa-per-worker-matches-pool reports it,
  // and the nodes it would fill are not idle.
  const unread = ws.some(
    (w) => instanceTypeOf(w.svc) === g.type && gpusOf(w.svc) === 0 && w.svc?.componentType === "worker",
  );
  if (unread) return { nodes: g.nodes, how: "a worker's GPUs are unreadable" };
  const gpus = (w: GraphService) => (isUnknownValue(w.svc.replicas) ? 1 : Number(w.svc.replicas ?? 1)) * gpusOf(w.svc);
  const apart =
    mine.length > 1 &&
    mine.every((w) => mine.every((o) => o === w || avoidsOnNode(w, o.key) || avoidsOnNode(o, w.key)));
  if (apart) {
    const per = mine.map((w) => ({ key: w.key, nodes: Math.ceil(gpus(w) / g.gpusPerNode) }));
    return {
      nodes: per.reduce((s, x) => s + x.nodes, 0),
      how: `each role on nodes of its own: ${per.map((x) => `${x.key} ${x.nodes}`).join(", ")}`,
    };
  }
  const total = mine.reduce((s, w) => s + gpus(w), 0);
  return { nodes: Math.ceil(total / g.gpusPerNode), how: `${total} GPUs at ${g.gpusPerNode} per node` };
}

/** 26. (stack, advisory) No GPU node group has more nodes than the graph's workers fill. */
export const noIdleGpuNodes: StackValidationPolicy = {
  name: "no-idle-gpu-nodes",
  description:
    "A GPU node group has no more nodes than the graph's workers pinned to it fill; an idle GPU node is billed and runs nothing.",
  enforcementLevel: "advisory",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const groups = gpuNodeGroups(args.resources);
    const dgds = ofType(args.resources, ResourceType.Dgd);
    if (groups.length === 0 || dgds.length === 0)
      args.notApplicable("no GPU node group with a known size, or no graph");
    const ws = dgds.flatMap((d) => workers(rawPropsOf(d, ResourceType.Dgd), d.name));
    for (const g of groups) {
      const filled = nodesFilled(g, ws);
      if (g.nodes <= filled.nodes) continue;
      report(
        `node group ${show(g.ng.name)} runs ${g.nodes} x ${g.type}, but the graph's workers fill ${filled.nodes} (${filled.how}), so ${g.nodes - filled.nodes} GPU node(s) are billed and idle; lower the node count to ${filled.nodes} or add replicas`,
        g.ng.urn,
      );
    }
  },
};

/** Policies of this module, in pack order. */
export const placementPolicies = [prefillDecodeApartOverEfa, noIdleGpuNodes];
