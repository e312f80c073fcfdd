/**
 * Policies on the network of an EFA node pool: the security group on its EFA interfaces lets the nodes
 * talk to each other, and the pool stays in one availability zone. Split from the worker-side pool
 * checks (`gpu-cluster.ts`) because these read the stack graph of AWS resources, not the graph.
 */
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { schemaFor } from "./_policy";
import { InlineSgRuleProps, LaunchTemplateProps, ResourceType, typed } from "./_resources";
import { isUnknownValue, rawProps } from "./_unknowns";
import { ofType } from "./_stack";
import { show } from "../../components/_shared/problems";
import { rawPropsOf } from "./_predicates";

const EFA_INTERFACE_TYPES: readonly unknown[] = ["efa", "efa-only"];

/** One network interface of a launch template. */
type NetworkInterface = NonNullable<LaunchTemplateProps["networkInterfaces"]>[number];

/** The EFA network interfaces of a launch template (raw props). */
function efaInterfaces(lt: LaunchTemplateProps | undefined): readonly NetworkInterface[] {
  const nis = lt?.networkInterfaces;
  return Array.isArray(nis) ? nis.filter((n) => EFA_INTERFACE_TYPES.includes(n?.interfaceType)) : [];
}

const ltProps = (lt: PolicyResource) => rawPropsOf(lt, ResourceType.LaunchTemplate);
const sgId = (sg: PolicyResource) => rawPropsOf(sg, ResourceType.SecurityGroup)?.id;

const sameRef = (a: unknown, b: unknown) => typeof a === "string" && !isUnknownValue(a) && a === b;
const linked = (r: PolicyResource, key: string, target: PolicyResource) =>
  (r.propertyDependencies?.[key] ?? []).some((d) => d.urn === target.urn);
const isAll = (p: unknown) => p === "-1" || p === "all" || p === -1;

/** Whether a standalone rule resource is a self-referencing all-traffic rule of `sg`, and its direction. */
function ruleDirection(rule: PolicyResource, sg: PolicyResource): "ingress" | "egress" | undefined {
  const t = typed(rule, [ResourceType.SgRule, ResourceType.SgIngressRule, ResourceType.SgEgressRule]);
  if (!t) return undefined;
  const p = rawProps(t.props);
  const groupId = sgId(sg);
  // Without per-property dependencies (the offline plan records only the union), a rule belongs to
  // every security group it depends on; "self" is then decided from the rule's own fields.
  const byDeps =
    rule.propertyDependencies?.securityGroupId === undefined && (rule.dependencies ?? []).some((d) => d.urn === sg.urn);
  const ofSg = linked(rule, "securityGroupId", sg) || sameRef(p?.securityGroupId, groupId) || byDeps;
  if (!ofSg) return undefined;
  if (t.type === ResourceType.SgRule) {
    const r = rawProps(t.props);
    const self =
      r?.self === true ||
      linked(rule, "sourceSecurityGroupId", sg) ||
      sameRef(r?.sourceSecurityGroupId, r?.securityGroupId);
    const type = r?.type;
    return self && isAll(r?.protocol) && (type === "ingress" || type === "egress") ? type : undefined;
  }
  const v = rawProps(t.props);
  const self =
    linked(rule, "referencedSecurityGroupId", sg) ||
    sameRef(v?.referencedSecurityGroupId, v?.securityGroupId) ||
    sameRef(v?.referencedSecurityGroupId, groupId);
  if (!self || !isAll(v?.ipProtocol)) return undefined;
  return t.type === ResourceType.SgIngressRule ? "ingress" : "egress";
}

/** Directions (`ingress`, `egress`) in which `sg` allows all traffic from/to itself. */
export function selfReferencingDirections(sg: PolicyResource, resources: readonly PolicyResource[]): Set<string> {
  const dirs = new Set<string>();
  const p = rawPropsOf(sg, ResourceType.SecurityGroup);
  for (const dir of ["ingress", "egress"] as const) {
    const list = p?.[dir];
    const inline: readonly InlineSgRuleProps[] = Array.isArray(list) ? list : [];
    if (
      inline.some(
        (r) =>
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
  const p = ltProps(lt);
  const ids = [...(p?.vpcSecurityGroupIds ?? []), ...efaInterfaces(p).flatMap((n) => n?.securityGroups ?? [])];
  const deps = [
    ...(lt.propertyDependencies?.networkInterfaces ?? []),
    ...(lt.propertyDependencies?.vpcSecurityGroupIds ?? []),
    ...(lt.dependencies ?? []),
  ];
  return ofType(resources, ResourceType.SecurityGroup).filter(
    (sg) => deps.some((d) => d.urn === sg.urn) || ids.some((id) => sameRef(id, sgId(sg))),
  );
}

/** The type a `pulumi.StackReference` registers as. */
const STACK_REFERENCE = "pulumi:pulumi:StackReference";

/** 12. (stack) The security group on EFA interfaces allows all traffic to and from itself. */
export const efaSecurityGroupSelfReferencing: StackValidationPolicy = {
  name: "efa-security-group-self-referencing",
  description:
    "Every EFA launch template attaches a security group that allows all traffic from itself (ingress) and to itself (egress); a group of another stack (a model stack's pool on its cluster stack's group, read through a StackReference) is not visible here and passes: EfaCluster creates it with both rules.",
  configSchema: schemaFor({}),
  validateStack: (args, report) => {
    const lts = ofType(args.resources, ResourceType.LaunchTemplate).filter(
      (lt) => efaInterfaces(ltProps(lt)).length > 0,
    );
    if (lts.length === 0) args.notApplicable("no launch template with EFA interfaces");
    for (const lt of lts) {
      const groups = attachedGroups(lt, args.resources);
      const refs = efaInterfaces(ltProps(lt)).flatMap((n) => n?.securityGroups ?? []);
      if (groups.length === 0) {
        if (refs.some(isUnknownValue) || isUnknownValue(ltProps(lt)?.networkInterfaces)) continue; // preview: ids not known yet
        // A pool on a cluster another stack created (a model stack) joins that stack's EFA group, read through a
        // StackReference: its rules are that stack's resources, created with the group (EfaCluster), not this one's.
        if (args.resources.some((r) => r.type === STACK_REFERENCE)) continue;
        report(
          `launch template ${show(lt.name)} has EFA interfaces but no security group created in this stack is attached to them (got ${show([...new Set(refs)])}); attach a security group with self-referencing all-traffic ingress and egress rules`,
          lt.urn,
        );
        continue;
      }
      const ok = groups.some((sg) => selfReferencingDirections(sg, args.resources).size === 2);
      if (!ok) {
        const have = groups
          .map((sg) => `${show(sg.name)}: ${[...selfReferencingDirections(sg, args.resources)].join("+") || "none"}`)
          .join(", ");
        report(
          `launch template ${show(lt.name)} has EFA interfaces but none of its security groups allows all traffic to and from itself (self-referencing ${have}); add protocol -1 rules referencing the group itself for BOTH ingress and egress, or EFA traffic between nodes is dropped`,
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
  const ref = rawPropsOf(ng, ResourceType.NodeGroup)?.launchTemplate;
  return ofType(resources, ResourceType.LaunchTemplate).find(
    (lt) => sameRef(ref?.id, ltProps(lt)?.id) || sameRef(ref?.name, ltProps(lt)?.name),
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
      .filter(({ lt }) => lt !== undefined && efaInterfaces(ltProps(lt)).length > 0);
    if (groups.length === 0) args.notApplicable("no node group with an EFA launch template");
    for (const { ng, lt } of groups) {
      const subnets = rawPropsOf(ng, ResourceType.NodeGroup)?.subnetIds;
      if (!Array.isArray(subnets) || subnets.length <= 1) continue; // unknown in preview, or single
      const subnetRes = (ng.propertyDependencies?.subnetIds ?? []).filter((s) => s.type === ResourceType.Subnet);
      const azs = new Set(subnetRes.map((s) => rawPropsOf(s, ResourceType.Subnet)?.availabilityZone));
      if (subnetRes.length === subnets.length && azs.size === 1 && ![...azs].some(isUnknownValue)) continue;
      report(
        `node group ${show(ng.name)} uses EFA (launch template ${show(lt!.name)}) but spans ${subnets.length} subnets ${show(subnets.map((s: unknown) => (isUnknownValue(s) ? "(unknown)" : s)))}; EFA traffic does not cross availability zones and a cluster placement group is single-AZ: give it exactly one private subnet`,
        ng.urn,
      );
    }
  },
};

/** Policies of this module, in pack order. */
export const efaNetworkPolicies = [efaSecurityGroupSelfReferencing, efaPoolSingleAz];
