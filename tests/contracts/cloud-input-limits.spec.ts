/**
 * Inputs that reach the cloud are checked the way the cloud checks them: the image reference grammar of
 * distribution/reference (the prefetch image and `image.ref` share components/image/ref.ts), EKS's public-access
 * CIDR rules and the load balancer's security-group rule quota, each held to its fact file.
 */
import { strict as assert } from "assert";
import { parseImageRef } from "../../components/image/ref";
import { validateImage } from "../../components/inference/validate";
import { EKS_MAX_PUBLIC_ACCESS_CIDRS } from "../../components/cluster/validate-network";
import { LB_SOURCE_RANGES_PER_FAMILY } from "../../components/inference/network";
import { validateClusterArgs } from "../../components/cluster/validate";
import { loadFacts } from "./facts";

interface RefFacts {
  readonly alphanumeric: string;
  readonly separator: string;
  readonly domainNameComponent: string;
  readonly optionalPort: string;
  readonly ipv6address: string;
  readonly nameTotalLengthMax: number;
}
interface LimitFacts {
  readonly eks: { readonly publicAccessCidrsMax: number; readonly reservedAddressesRefused: boolean };
  readonly securityGroup: { readonly inboundRulesPerFamilyDefault: number };
}

describe("contract: cloud input limits", () => {
  const ref = loadFacts<RefFacts>("image-reference").facts;
  const limits = loadFacts<LimitFacts>("aws-network-limits").facts;
  const D = `@sha256:${"0".repeat(64)}`;

  it("the reference parser agrees with distribution/reference's grammar on names that differ in one rule", () => {
    // The upstream name pattern, built from the fact's own pieces, as reference.go anchors it.
    const path = `${ref.alphanumeric}(?:${ref.separator}${ref.alphanumeric})*`;
    const domain = `(?:${ref.domainNameComponent}(?:\\.${ref.domainNameComponent})*|${ref.ipv6address})${ref.optionalPort}`;
    const remote = new RegExp(`^${path}(?:/${path})*$`);
    const registry = new RegExp(`^${domain}$`);
    // normalize.go's splitDockerDomain: the first component is a registry only with a "." or ":" or as "localhost".
    const upstream = {
      test(name: string): boolean {
        const slash = name.indexOf("/");
        const first = slash < 0 ? "" : name.slice(0, slash);
        if (/[.:]/.test(first) || first === "localhost")
          return registry.test(first) && remote.test(name.slice(slash + 1));
        return remote.test(name);
      },
    };
    const names = [
      "python",
      "library/python",
      "a__b",
      "a___b",
      "a._b",
      "a--b",
      "a..b",
      "-a",
      "a-",
      "UPPER/x",
      "x/UPPER",
      "public.ecr.aws/docker/library/python",
      "reg.io:5000/x",
      "[::1]:5000/x",
      "../x",
      "../../x",
      "$(id)",
      "a;b",
      "ｐｙｔｈｏｎ",
      `r.io/${"a".repeat(250)}`,
      `r.io/${"a".repeat(251)}`,
    ];
    for (const name of names) {
      const want = upstream.test(name) && name.length <= ref.nameTotalLengthMax;
      assert.equal(parseImageRef(`${name}${D}`) !== undefined, want, name);
      assert.equal(validateImage(`${name}${D}`).length === 0, want, `validateImage ${name}`);
    }
  });

  it(`publicAccessCidrs: at most ${limits.eks.publicAccessCidrsMax}, and no reserved addresses`, () => {
    assert.equal(EKS_MAX_PUBLIC_ACCESS_CIDRS, limits.eks.publicAccessCidrsMax);
    assert.ok(limits.eks.reservedAddressesRefused);
    const args = (publicAccessCidrs: string[]) =>
      validateClusterArgs({
        availabilityZones: ["us-east-2a", "us-east-2b"],
        gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 1, availabilityZone: "us-east-2a" } },
        publicAccessCidrs,
      }).map((p) => p.propertyPath);
    const n = (k: number) => Array.from({ length: k }, (_, i) => `8.8.${i}.0/24`);
    assert.deepEqual(args(n(limits.eks.publicAccessCidrsMax)), []);
    assert.deepEqual(args(n(limits.eks.publicAccessCidrsMax + 1)), ["publicAccessCidrs"]);
    for (const reserved of ["10.0.0.0/8", "172.16.0.0/12", "192.168.1.0/24", "127.0.0.1/32", "169.254.0.0/16"])
      assert.deepEqual(args([reserved]), ["publicAccessCidrs[0]"], reserved);
  });

  it("the load balancer's source ranges: one security-group rule each, the default quota per family", () =>
    assert.equal(LB_SOURCE_RANGES_PER_FAMILY, limits.securityGroup.inboundRulesPerFamilyDefault));
});
