/**
 * Contract: what the plan's per-node timeline and the prefetch DaemonSet assume about image pulls on the EKS AL2023
 * AMI, against facts/eks-node-image-pull.json (awslabs/amazon-eks-ami@81fec2e): the kubelet pulls different pods'
 * images at once, so the small prefetch image is not queued behind the serving image; SOCI is installed but only
 * in parallel-pull mode behind an off-by-default gate, so the timeline assumes a plain pull.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { KUBELET_PULLS_IN_PARALLEL } from "../../tools/render/plan/idle";
import { gpuUserData } from "../../components/cluster/user-data";

interface ImagePullFacts {
  kubeletSerializeImagePulls: boolean;
  kubeletSetsMaxParallelImagePulls: boolean;
  amiInstallsSociSnapshotter: boolean;
  fastImagePullDefault: string;
  sociOnlyWithFastImagePull: boolean;
  sociPullModes: string[];
}

describe("contract: image pulls on the EKS AL2023 AMI (amazon-eks-ami)", () => {
  const { facts } = loadFacts<ImagePullFacts>("eks-node-image-pull");

  it("the kubelet pulls in parallel, with no cap: the plan's overlap rests on it", () => {
    assert.equal(KUBELET_PULLS_IN_PARALLEL, !facts.kubeletSerializeImagePulls);
    assert.equal(facts.kubeletSetsMaxParallelImagePulls, false);
  });

  it("SOCI is parallel pull only, off unless FastImagePull is set, and our user data does not set it", () => {
    assert.equal(facts.amiInstallsSociSnapshotter, true);
    assert.deepEqual(facts.sociPullModes, ["parallel_pull_unpack"], "no lazy-loading mode configured");
    assert.equal(facts.fastImagePullDefault, "DefaultFalse");
    assert.equal(facts.sociOnlyWithFastImagePull, true);
    assert.doesNotMatch(gpuUserData({ localNvme: true, efa: true }, 0) ?? "", /FastImagePull/);
  });
});
