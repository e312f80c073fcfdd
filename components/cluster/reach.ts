/**
 * Who can reach the cluster's API endpoint while `pulumi up` runs. The same `pulumi up` that creates EKS installs
 * Helm releases and the graph through that endpoint, so the machine running Pulumi must reach it: either from one of
 * `publicAccessCidrs`, or from inside the VPC (private endpoint). A private endpoint with no statement that the
 * deploy runs inside the VPC stalls after EKS and the GPU nodes already bill, so it is a config error; and the RFC
 * 5737 documentation ranges the example stacks carry reach nobody. Pure; no Pulumi import.
 */
import { coveredSpaces } from "../_shared/cidr";
import { Problem, show } from "../_shared/problems";

/** The RFC 5737 documentation ranges (TEST-NET-1, -2, -3): no host on the internet has these addresses. */
export const DOCUMENTATION_RANGES = ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"] as const;

/** The command that sets the deployer's own address (what README's deploy steps run). */
export const SET_OWN_CIDR = `pulumi config set --path 'dynamo-efa:cluster.publicAccessCidrs[0]' "$(curl -s https://checkip.amazonaws.com)/32"`;

/**
 * The documentation range that holds every address of `cidr`, or undefined (also for anything that is not a CIDR):
 * `_shared/cidr`'s parser and cover test, so a spelling the cluster's validator accepts is read the same here.
 */
export function documentationRangeOf(cidr: string): string | undefined {
  return DOCUMENTATION_RANGES.find((range) => coveredSpaces([range], [cidr]).length > 0);
}

/** Each entry of `cidrs` inside a documentation range, with its index. */
export function documentationCidrs(cidrs: readonly string[]): { index: number; cidr: string; range: string }[] {
  return cidrs.flatMap((cidr, index) => {
    const range = documentationRangeOf(cidr);
    return range ? [{ index, cidr, range }] : [];
  });
}

/** The two ways to reach the endpoint, as a fix (`key` is the path prefix of the caller: "" or "cluster."). */
export function reachChoices(key = ""): string {
  return `list the CIDRs the deploy runs from (your own address: ${SET_OWN_CIDR}), or keep the endpoint private and set ${key}deployFromInsideVpc: true when \`pulumi up\` runs inside the VPC (a bastion, a VPN, CI in the VPC)`;
}

/**
 * An empty `publicAccessCidrs` without the statement that the deploy runs inside the VPC: the endpoint would be
 * private and nothing here could reach it.
 */
export function reachProblems(a: {
  readonly publicAccessCidrs: readonly string[];
  readonly deployFromInsideVpc: boolean;
}): Problem[] {
  if (a.publicAccessCidrs.length > 0 || a.deployFromInsideVpc) return [];
  return [
    {
      propertyPath: "publicAccessCidrs",
      reason: `is empty, so the API endpoint is private, and deployFromInsideVpc is not set: \`pulumi up\` would create EKS and the GPU nodes, then stall installing the Helm releases through an endpoint it cannot reach; ${reachChoices()}`,
    },
  ];
}

/**
 * The documentation ranges in `publicAccessCidrs`, refused for a real deploy (`pulumi preview`/`up`): they reach
 * nobody. The offline render accepts them with a note (`documentationNote`).
 */
export function documentationCidrProblems(cidrs: readonly string[], base = ""): Problem[] {
  return documentationCidrs(cidrs).map(({ index, cidr, range }) => ({
    propertyPath: `${base}publicAccessCidrs[${index}]`,
    reason: `${show(cidr)} is in ${range}, an RFC 5737 documentation range that no machine deploys from (the example stacks carry it as a placeholder); ${reachChoices(base)}`,
  }));
}

/** The render's note for documentation ranges (the render runs offline and accepts them). */
export function documentationNote(cidrs: readonly string[], key: string): string | undefined {
  const found = documentationCidrs(cidrs);
  if (found.length === 0) return undefined;
  return `note: ${key} holds ${found.map((f) => f.cidr).join(", ")} (RFC 5737 documentation range); rendered as given, but \`pulumi preview\`/\`up\` refuse it. Before \`pulumi up\`: ${SET_OWN_CIDR}`;
}
