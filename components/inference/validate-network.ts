/**
 * Problems of the graph's network arguments: the internal load balancer's source ranges, the VPC CIDR they
 * default to, and the namespaces the NetworkPolicies let in. Split from `./validate.ts`, which collects these with
 * the rest. Pure.
 */
import { coveredSpaces, parseCidr, WHOLE_INTERNET } from "../_shared/cidr";
import { K8S_NAME } from "../_shared/names";
import { Problem, show } from "../_shared/problems";
import { FrontendServiceType, ResolvedInference } from "./args";

function cidrProblem(path: string, value: unknown): Problem[] {
  const p = parseCidr(value);
  return "error" in p ? [{ propertyPath: path, reason: `${p.error}; got ${show(value)}` }] : [];
}

/** The load balancer's source ranges: CIDRs, at least one, and never everything routed into the VPC. */
function sourceRangeProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const path = at("frontend.sourceRanges");
  const ranges = r.frontend.sourceRanges;
  const out = ranges.flatMap((c, i) => cidrProblem(`${path}[${i}]`, c));
  if (r.frontend.serviceType !== FrontendServiceType.InternalLoadBalancer) return out;
  if (ranges.length === 0)
    out.push({
      propertyPath: path,
      reason: `must list the CIDRs that may reach the internal load balancer; none given and no vpcCidr to default to. Set vpcCidr (the cluster VPC's CIDR, e.g. "10.0.0.0/16") or list your callers' CIDRs`,
    });
  const world = coveredSpaces(ranges, [WHOLE_INTERNET.v4, WHOLE_INTERNET.v6]);
  if (out.length === 0 && world.length > 0)
    out.push({
      propertyPath: path,
      reason: `${show(ranges)} cover ${world.join(" and ")}: anything routed into the VPC (peered VPCs, VPN, Transit Gateway) would reach the unauthenticated API. List only your callers' CIDRs, or the VPC's`,
    });
  return out;
}

/** Every problem of the network arguments. */
export function networkProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const out = [...sourceRangeProblems(r, at)];
  if (r.vpcCidr !== undefined) out.push(...cidrProblem(at("vpcCidr"), r.vpcCidr));
  for (const key of ["clientNamespaces", "metricsNamespaces"] as const)
    r.networkPolicy[key].forEach((ns, i) => {
      if (!K8S_NAME.test(String(ns)))
        out.push({
          propertyPath: at(`networkPolicy.${key}[${i}]`),
          reason: `must be a namespace name (lower-case RFC 1123, <= 63 characters); got ${show(ns)}`,
        });
    });
  return out;
}
