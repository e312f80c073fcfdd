/**
 * `gpuPools.<name>.amiReleaseVersion` against the EKS AL2023 AMI releases amazon-eks-ami lists
 * (tests/contracts/facts/eks-ami-releases.json): every listed release of the cluster's Kubernetes minor is accepted,
 * one of another minor or a malformed one is refused naming the fix. And the ground the default release stands on:
 * dynamo-1.6's vendor images are CUDA 13, which the R580 driver runs, and the newest AMI of every Kubernetes version
 * the cluster supports carries R580 (so leaving `amiReleaseVersion` unset gets it).
 */
import { strict as assert } from "assert";
import { EfaClusterArgs } from "../../components/cluster/args";
import { validateClusterArgs } from "../../components/cluster/validate";
import { AMI_RELEASE_VERSION } from "../../components/cluster/validate-pool";
import { kubernetes } from "../../components/versions";
import { loadFacts } from "./facts";

interface Minor {
  readonly releaseVersions: string[];
  readonly newest: string;
  readonly firstNvidiaR580?: { readonly releaseVersion: string; readonly driver: string };
}
const { facts } = loadFacts<{ minors: Record<string, Minor> }>("eks-ami-releases");

const cluster = (kubernetesVersion: string, amiReleaseVersion: unknown): EfaClusterArgs => ({
  availabilityZones: ["us-east-2a", "us-east-2b"],
  deployFromInsideVpc: true,
  kubernetesVersion,
  gpuPools: {
    gpu: {
      instanceType: "p5en.48xlarge",
      nodes: 2,
      availabilityZone: "us-east-2a",
      amiReleaseVersion: amiReleaseVersion as string,
    },
  },
});
const amiProblems = (k: string, v: unknown) =>
  validateClusterArgs(cluster(k, v)).filter((p) => p.propertyPath === "gpuPools.gpu.amiReleaseVersion");

describe("contract: EKS AMI release versions (amazon-eks-ami CHANGELOG)", () => {
  it("lists releases for every Kubernetes version the cluster supports", () => {
    for (const k of kubernetes.supportedVersions) assert.ok(facts.minors[k]?.releaseVersions.length, k);
  });

  it("every listed release matches the release-version form the validator reads", () => {
    for (const [minor, m] of Object.entries(facts.minors))
      for (const v of m.releaseVersions) assert.equal(AMI_RELEASE_VERSION.exec(v)?.[1], minor, v);
  });

  it("accepts every listed release of the cluster's own Kubernetes version", () => {
    for (const k of kubernetes.supportedVersions)
      for (const v of facts.minors[k]!.releaseVersions) assert.deepEqual(amiProblems(k, v), [], `${k} ${v}`);
  });

  it("refuses a release of another Kubernetes version, naming both and the fix", () => {
    const [p] = amiProblems("1.35", facts.minors["1.34"]!.newest);
    assert.match(p!.reason, /is an AMI for Kubernetes 1\.34, but the cluster runs 1\.35 .*use a 1\.35 release/);
  });

  it("refuses what is not a release version (a minor alone, a date alone, YAML's number), naming the form", () => {
    for (const bad of ["1.35", "v20260714", "latest", 1.35, "1.35.6-2026071"])
      assert.match(
        amiProblems("1.35", bad)[0]?.reason ?? "",
        /must be an EKS AMI release version such as/,
        String(bad),
      );
  });

  it("the newest AMI of every supported Kubernetes version carries the R580 NVIDIA driver that CUDA 13 images need", () => {
    for (const k of kubernetes.supportedVersions) {
      const m = facts.minors[k]!;
      assert.ok(m.firstNvidiaR580, `${k}: no release with R580`);
      assert.ok(m.releaseVersions.indexOf(m.firstNvidiaR580.releaseVersion) <= m.releaseVersions.indexOf(m.newest), k);
    }
    // What the argument's doc says: every 1.35 and 1.36 release has it.
    for (const k of ["1.35", "1.36"])
      assert.equal(facts.minors[k]!.firstNvidiaR580?.releaseVersion, facts.minors[k]!.releaseVersions[0]);
  });
});
