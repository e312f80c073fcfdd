/**
 * Policies tying workers to the GPU pool they run on (EFA count, hugepages: F8, F12, F14) and the
 * pool's AWS resources (EFA security group, single AZ, IMDSv2).
 */
import type { PolicyResource, ReportViolation, StackValidationPolicy } from "@pulumi/policy";
import {
  efaPerGpu,
  INSTANCES,
  unknownInstanceReason,
  GpuInstance,
  supportsNixlOverEfa,
} from "../../components/catalog/instances";
import { resourcePolicy, dgdPolicy, schemaFor } from "./_policy";
import {
  annotation,
  containerResource,
  dgdName,
  EFA_RESOURCE,
  efaOf,
  gpusOf,
  GraphService,
  hugepagesOf,
  instanceTypeOf,
  isUnknownValue,
  ofType,
  PlanAnnotation,
  POOL_LABEL,
  q,
  rawProps,
  requestsEfa,
  ResourceType,
  workers,
} from "./_predicates";

const GPU_K8S = "nvidia.com/gpu";

function checkKubernetesForm(w: GraphService, report: ReportViolation): void {
  for (const [key, dynamo, what] of [
    [GPU_K8S, "resources.limits.gpu", "GPUs"],
    [EFA_RESOURCE, `resources.limits.custom["${EFA_RESOURCE}"]`, "EFA devices"],
  ]) {
    if (containerResource(w.svc, key) !== undefined) {
      report(
        `${w.label} sets ${key} on extraPodSpec.mainContainer.resources (Kubernetes form), which the operator ignores, so it schedules 0 ${what} (F8); move it to ${dynamo}`,
      );
    }
  }
}

function checkEfaCount(w: GraphService, row: GpuInstance, allowWithoutEfa: boolean, report: ReportViolation): void {
  const gpus = gpusOf(w.svc);
  const efa = efaOf(w.svc);
  const field = `resources.limits.custom["${EFA_RESOURCE}"]`;
  if (gpus === 0) return report(`${w.label} requests no GPU in Dynamo form; set resources.limits.gpu (F8)`);
  if (row.efaDevices === 0) {
    if (efa > 0) report(`${w.label} requests ${efa} EFA device(s) but ${row.name} has no EFA; remove ${field}`);
    return;
  }
  // Without GPUDirect RDMA (g family) NIXL cannot use EFA for KV, so a worker there may go without it.
  if (efa === 0 && (allowWithoutEfa || !supportsNixlOverEfa(row))) return;
  const perGpu = efaPerGpu(row);
  const expected = gpus * perGpu;
  if (!Number.isInteger(expected) || expected < 1) {
    return report(
      `${w.label}: ${gpus} GPU(s) x ${perGpu} EFA per GPU of a ${row.name} = ${expected}, not a whole number of EFA devices (F12); use a GPU count per worker that is a multiple of ${Math.ceil(1 / perGpu)}`,
    );
  }
  if (efa !== expected) {
    report(
      `${w.label} requests ${efa} EFA device(s) for ${gpus} GPU(s); on ${row.name} a worker gets ${gpus} GPU(s) x ${perGpu} EFA per GPU = ${expected} (EFA counts come from the instance catalog: F12); set ${field} to "${expected}"`,
    );
  }
}

/** 5. EFA requested = GPUs x EFA-per-GPU of the instance the worker is pinned to, in Dynamo resource form. */
export const efaPerWorkerMatchesPool = dgdPolicy({
  name: "efa-per-worker-matches-pool",
  description:
    "Each worker requests GPUs and EFA in Dynamo resource form, and EFA devices equal its GPUs times the EFA-per-GPU of its instance type (none is allowed only where NIXL cannot use EFA).",
  defaults: { allowWithoutEfa: false },
  check: (props, args, report, cfg) => {
    for (const w of workers(props, args.name)) {
      checkKubernetesForm(w, report);
      const type = instanceTypeOf(w.svc);
      if (type === undefined) {
        if (requestsEfa(w.svc))
          report(
            `${w.label} requests EFA but is not pinned to an instance type; add extraPodSpec.nodeSelector["node.kubernetes.io/instance-type"] so its EFA count matches the node's`,
          );
        continue;
      }
      const row = INSTANCES.get(type);
      if (!row) report(`${w.label} is pinned to an ${unknownInstanceReason(type)}`);
      else checkEfaCount(w, row, cfg.allowWithoutEfa, report);
    }
  },
});

interface HugepageItem {
  readonly who: string;
  readonly pages: number;
  readonly gpus: number;
}
interface NodePool {
  readonly type: string;
  readonly pool: string;
  readonly row: GpuInstance;
  total: number;
  source: string;
  readonly items: HugepageItem[];
  readonly urns: Set<string>;
}

/** The most hugepages any set of worker replicas that fits one node's GPUs can request (0/1 knapsack on GPUs). */
export function worstNodeHugepages(
  items: readonly HugepageItem[],
  gpusPerNode: number,
): { pages: number; who: string[] } {
  const free = items.filter((i) => i.gpus === 0);
  let best = Array.from({ length: gpusPerNode + 1 }, () => ({ pages: 0, who: [] as string[] }));
  for (const it of items.filter((i) => i.gpus > 0)) {
    const next = best.map((b) => ({ ...b }));
    for (let c = it.gpus; c <= gpusPerNode; c++) {
      const cand = best[c - it.gpus].pages + it.pages;
      if (cand > next[c].pages) next[c] = { pages: cand, who: [...best[c - it.gpus].who, it.who] };
    }
    best = next;
  }
  const top = best.reduce((a, b) => (b.pages > a.pages ? b : a));
  return { pages: top.pages + free.reduce((n, i) => n + i.pages, 0), who: [...top.who, ...free.map((i) => i.who)] };
}

const summarize = (who: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const w of who) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].map(([w, n]) => `${n} x ${w}`).join(" + ");
};

function collectPools(resources: readonly PolicyResource[]): Map<string, NodePool> {
  const pools = new Map<string, NodePool>();
  for (const r of ofType(resources, ResourceType.Dgd)) {
    const props = rawProps(r.props);
    const override = Number(annotation(props, PlanAnnotation.Hugepages2MiPerNode));
    for (const w of workers(props, r.name)) {
      const type = instanceTypeOf(w.svc);
      const row = type === undefined ? undefined : INSTANCES.get(type);
      const pages = hugepagesOf(w.svc);
      if (!row || pages === 0) continue;
      const poolName = w.svc?.extraPodSpec?.nodeSelector?.[POOL_LABEL];
      const key = `${row.name}|${poolName ?? ""}`;
      const pool = pools.get(key) ?? {
        type: key,
        pool: typeof poolName === "string" ? ` of pool ${q(poolName)}` : "",
        row,
        total: row.efaHugepages2Mi,
        source: `the ${row.name} catalog value`,
        items: [],
        urns: new Set<string>(),
      };
      if (Number.isFinite(override) && override >= 0 && (pool.source.startsWith("the ") || override < pool.total)) {
        pool.total = override;
        pool.source = `annotation ${PlanAnnotation.Hugepages2MiPerNode} on ${q(dgdName(props, r.name))}`;
      }
      const replicas = isUnknownValue(w.svc.replicas) ? 1 : Number(w.svc.replicas ?? 1);
      for (let i = 0; i < replicas; i++)
        pool.items.push({
          who: `${w.key} of ${q(dgdName(props, r.name))} at ${pages} pages`,
          pages,
          gpus: gpusOf(w.svc),
        });
      pool.urns.add(r.urn);
      pools.set(key, pool);
    }
  }
  return pools;
}

/** 6. (stack) Hugepages of the workers that can share a node fit the node's pre-allocated total. */
export const hugepagesFitNode: StackValidationPolicy = {
  name: "hugepages-fit-node",
  description:
    "The 2 MiB hugepages requested by worker replicas that can share a node fit the hugepages that node pre-allocates.",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const pools = collectPools(args.resources);
    if (pools.size === 0) args.notApplicable("no worker requests hugepages-2Mi on a known instance type");
    for (const p of pools.values()) {
      const worst = worstNodeHugepages(p.items, p.row.gpuCount);
      if (worst.pages <= p.total) continue;
      const perGpu = Math.floor(p.total / p.row.gpuCount);
      const msg = `${p.row.name} nodes${p.pool}: worker replicas that can share one node request up to ${worst.pages} hugepages-2Mi pages (${summarize(worst.who)}), but a node pre-allocates ${p.total} (${p.source}), so only some of them ever schedule (F14); request at most ${perGpu} pages (${perGpu * 2}Mi) per GPU of a worker, or none with FI_EFA_USE_HUGE_PAGE=0`;
      for (const urn of p.urns) report(msg, urn);
    }
  },
};

// ---------------------------------------------------------------------------------------------
// AWS

const EFA_INTERFACE_TYPES = ["efa", "efa-only"];

/** The EFA network interfaces of a launch template (raw props). */
function efaInterfaces(ltProps: any): any[] {
  const nis = ltProps?.networkInterfaces;
  return Array.isArray(nis) ? nis.filter((n) => EFA_INTERFACE_TYPES.includes(n?.interfaceType)) : [];
}

const sameRef = (a: unknown, b: unknown) => typeof a === "string" && !isUnknownValue(a) && a === b;
const linked = (r: PolicyResource, key: string, target: PolicyResource) =>
  (r.propertyDependencies?.[key] ?? []).some((d) => d.urn === target.urn);
const isAll = (p: unknown) => p === "-1" || p === "all" || p === -1;

/** Whether a standalone rule resource is a self-referencing all-traffic rule of `sg`, and its direction. */
function ruleDirection(rule: PolicyResource, sg: PolicyResource): "ingress" | "egress" | undefined {
  const p = rawProps(rule.props);
  const sgId = rawProps(sg.props)?.id;
  // Without per-property dependencies (the offline plan records only the union), a rule belongs to
  // every security group it depends on; "self" is then decided from the rule's own fields.
  const byDeps =
    rule.propertyDependencies?.securityGroupId === undefined && (rule.dependencies ?? []).some((d) => d.urn === sg.urn);
  const ofSg = linked(rule, "securityGroupId", sg) || sameRef(p?.securityGroupId, sgId) || byDeps;
  if (!ofSg) return undefined;
  if (rule.type === ResourceType.SgRule) {
    const self =
      p?.self === true ||
      linked(rule, "sourceSecurityGroupId", sg) ||
      sameRef(p?.sourceSecurityGroupId, p?.securityGroupId);
    return self && isAll(p?.protocol) && (p?.type === "ingress" || p?.type === "egress") ? p.type : undefined;
  }
  const self =
    linked(rule, "referencedSecurityGroupId", sg) ||
    sameRef(p?.referencedSecurityGroupId, p?.securityGroupId) ||
    sameRef(p?.referencedSecurityGroupId, sgId);
  if (!self || !isAll(p?.ipProtocol)) return undefined;
  return rule.type === ResourceType.SgIngressRule
    ? "ingress"
    : rule.type === ResourceType.SgEgressRule
      ? "egress"
      : undefined;
}

/** Directions (`ingress`, `egress`) in which `sg` allows all traffic from/to itself. */
export function selfReferencingDirections(sg: PolicyResource, resources: readonly PolicyResource[]): Set<string> {
  const dirs = new Set<string>();
  const p = rawProps(sg.props);
  for (const dir of ["ingress", "egress"]) {
    const inline = Array.isArray(p?.[dir]) ? p[dir] : [];
    if (
      inline.some(
        (r: any) =>
          isAll(r?.protocol) &&
          (r?.self === true ||
            (Array.isArray(r?.securityGroups) && r.securityGroups.some((g: unknown) => sameRef(g, p?.id)))),
      )
    )
      dirs.add(dir);
  }
  const ruleTypes: string[] = [ResourceType.SgRule, ResourceType.SgIngressRule, ResourceType.SgEgressRule];
  for (const rule of resources.filter((r) => ruleTypes.includes(r.type))) {
    const d = ruleDirection(rule, sg);
    if (d) dirs.add(d);
  }
  return dirs;
}

/** Security groups (created in this stack) attached to a launch template. */
function attachedGroups(lt: PolicyResource, resources: readonly PolicyResource[]): PolicyResource[] {
  const p = rawProps(lt.props);
  const ids = [...(p?.vpcSecurityGroupIds ?? []), ...efaInterfaces(p).flatMap((n) => n?.securityGroups ?? [])];
  const deps = [
    ...(lt.propertyDependencies?.networkInterfaces ?? []),
    ...(lt.propertyDependencies?.vpcSecurityGroupIds ?? []),
    ...(lt.dependencies ?? []),
  ];
  return ofType(resources, ResourceType.SecurityGroup).filter(
    (sg) => deps.some((d) => d.urn === sg.urn) || ids.some((id: unknown) => sameRef(id, rawProps(sg.props)?.id)),
  );
}

/** 12. (stack) The security group on EFA interfaces allows all traffic to and from itself. */
export const efaSecurityGroupSelfReferencing: StackValidationPolicy = {
  name: "efa-security-group-self-referencing",
  description:
    "Every EFA launch template attaches a security group that allows all traffic from itself (ingress) and to itself (egress).",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const lts = ofType(args.resources, ResourceType.LaunchTemplate).filter(
      (lt) => efaInterfaces(rawProps(lt.props)).length > 0,
    );
    if (lts.length === 0) args.notApplicable("no launch template with EFA interfaces");
    for (const lt of lts) {
      const groups = attachedGroups(lt, args.resources);
      const refs = efaInterfaces(rawProps(lt.props)).flatMap((n) => n?.securityGroups ?? []);
      if (groups.length === 0) {
        if (refs.some(isUnknownValue) || isUnknownValue(rawProps(lt.props)?.networkInterfaces)) continue; // preview: ids not known yet
        report(
          `launch template ${q(lt.name)} has EFA interfaces but no security group created in this stack is attached to them (got ${q([...new Set(refs)])}); attach a security group with self-referencing all-traffic ingress and egress rules`,
          lt.urn,
        );
        continue;
      }
      const ok = groups.some((sg) => selfReferencingDirections(sg, args.resources).size === 2);
      if (!ok) {
        const have = groups
          .map((sg) => `${q(sg.name)}: ${[...selfReferencingDirections(sg, args.resources)].join("+") || "none"}`)
          .join(", ");
        report(
          `launch template ${q(lt.name)} has EFA interfaces but none of its security groups allows all traffic to and from itself (self-referencing ${have}); add protocol -1 rules referencing the group itself for BOTH ingress and egress, or EFA traffic between nodes is dropped`,
          lt.urn,
        );
      }
    }
  },
};

/** The launch template a node group uses (by property dependency, dependency, or id), if in this stack. */
function launchTemplateOf(ng: PolicyResource, resources: readonly PolicyResource[]): PolicyResource | undefined {
  const deps = [...(ng.propertyDependencies?.launchTemplate ?? []), ...(ng.dependencies ?? [])];
  const byDep = deps.find((d) => d.type === ResourceType.LaunchTemplate);
  if (byDep) return byDep;
  const ref = rawProps(ng.props)?.launchTemplate;
  return ofType(resources, ResourceType.LaunchTemplate).find(
    (lt) => sameRef(ref?.id, rawProps(lt.props)?.id) || sameRef(ref?.name, rawProps(lt.props)?.name),
  );
}

/** 13. (stack) EFA node groups live in one AZ (one subnet). */
export const efaPoolSingleAz: StackValidationPolicy = {
  name: "efa-pool-single-az",
  description:
    "A node group whose launch template has EFA interfaces is placed in exactly one subnet, so one availability zone.",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const groups = ofType(args.resources, ResourceType.NodeGroup)
      .map((ng) => ({ ng, lt: launchTemplateOf(ng, args.resources) }))
      .filter(({ lt }) => lt !== undefined && efaInterfaces(rawProps(lt.props)).length > 0);
    if (groups.length === 0) args.notApplicable("no node group with an EFA launch template");
    for (const { ng, lt } of groups) {
      const subnets = rawProps(ng.props)?.subnetIds;
      if (!Array.isArray(subnets) || subnets.length <= 1) continue; // unknown in preview, or single
      const subnetRes = (ng.propertyDependencies?.subnetIds ?? []).filter((s) => s.type === ResourceType.Subnet);
      const azs = new Set(subnetRes.map((s) => rawProps(s.props)?.availabilityZone));
      if (subnetRes.length === subnets.length && azs.size === 1 && ![...azs].some(isUnknownValue)) continue;
      report(
        `node group ${q(ng.name)} uses EFA (launch template ${q(lt!.name)}) but spans ${subnets.length} subnets ${q(subnets.map((s: unknown) => (isUnknownValue(s) ? "(unknown)" : s)))}; EFA traffic does not cross availability zones and a cluster placement group is single-AZ: give it exactly one private subnet`,
        ng.urn,
      );
    }
  },
};

/** 14. Launch templates require IMDSv2. */
export const imdsv2Required = resourcePolicy({
  name: "imdsv2-required",
  description: "Launch templates require IMDSv2 session tokens and keep the metadata hop limit low.",
  types: [ResourceType.LaunchTemplate],
  defaults: { maxHopLimit: 2 },
  check: (props, args, report, cfg) => {
    const m = props?.metadataOptions ?? {};
    if (m.httpTokens !== "required")
      report(
        `launch template ${q(args.name)} does not require IMDSv2 (metadataOptions.httpTokens is ${q(m.httpTokens)}); set metadataOptions: { httpTokens: "required" }`,
      );
    if (typeof m.httpPutResponseHopLimit === "number" && m.httpPutResponseHopLimit > cfg.maxHopLimit) {
      report(
        `launch template ${q(args.name)} sets metadataOptions.httpPutResponseHopLimit ${m.httpPutResponseHopLimit}, letting containers reach instance credentials; set it to ${cfg.maxHopLimit} or less`,
      );
    }
  },
});

/**
 * 21. Launch-template tag specifications carry at least one tag: EC2 rejects an empty one with
 * `InvalidTagSpecification.Malformed` (hashicorp/terraform-provider-aws#13155), failing every launch.
 */
export const launchTemplateTagsNonEmpty = resourcePolicy({
  name: "launch-template-tags-non-empty",
  description:
    "Every tag specification of a launch template carries at least one tag (EC2 rejects an empty one, so no instance launches).",
  types: [ResourceType.LaunchTemplate],
  defaults: {},
  check: (props, args, report) => {
    const specs = rawProps(props)?.tagSpecifications;
    if (!Array.isArray(specs)) return; // absent (no spec is valid) or unknown in preview
    specs.forEach((spec: any, i: number) => {
      const tags = spec?.tags;
      if (isUnknownValue(spec) || isUnknownValue(tags)) return;
      const empty = tags === undefined || tags === null || (typeof tags === "object" && Object.keys(tags).length === 0);
      if (empty)
        report(
          `launch template ${q(args.name)} has tagSpecifications[${i}] (resourceType ${q(spec?.resourceType)}) with no tags; EC2 rejects it with InvalidTagSpecification.Malformed and no node launches: give it at least a Name tag, or drop the specification`,
        );
    });
  },
});

/** Policies of this module, in pack order. */
export const gpuClusterPolicies = [
  efaPerWorkerMatchesPool,
  hugepagesFitNode,
  efaSecurityGroupSelfReferencing,
  efaPoolSingleAz,
  imdsv2Required,
  launchTemplateTagsNonEmpty,
];
