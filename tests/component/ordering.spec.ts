/**
 * The first `up`'s ordering, under the render's mocks: the `dynamo-platform` and kube-prometheus-stack releases wait
 * for what their pods and volumes need (the system node group, the EBS CSI add-on, the default StorageClass),
 * which EfaCluster exposes as `workloadPrerequisites`. Why each release needs them (the chart's pre-install hook
 * Jobs need a schedulable node; NATS's JetStream PVC names no class, so it binds through the default class and the
 * EBS CSI driver): tests/contracts/facts/platform-ordering.json.
 */
import { strict as assert } from "assert";
import { EfaCluster } from "../../components/cluster";
import { DynamoObservability } from "../../components/observability";
import { DynamoPlatform } from "../../components/platform";
import { Captured, captureComponents, one } from "../helpers/capture";
import { loadFacts } from "../contracts/facts";

const CHART = loadFacts<{
  preInstallHookJobs: string[];
  natsJetStreamClaim: { enabled: boolean; storageClassName: string | null };
  kubePrometheusStackHookJobs: string[];
}>("platform-ordering").facts;

const RELEASE = "kubernetes:helm.sh/v3:Release";

describe("ordering: the in-cluster releases wait for the nodes and storage their pods need", function () {
  let cap: Captured<unknown>;
  let needed: string[];

  before(async function () {
    this.timeout(60000);
    cap = await captureComponents(() => {
      const cluster = new EfaCluster("t", {
        availabilityZones: ["us-east-2a", "us-east-2b"],
        publicAccessCidrs: ["203.0.113.0/24"],
        gpuPools: { gpu: { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2a" } },
      });
      const afterNodes = {
        providers: { kubernetes: cluster.k8sProvider },
        dependsOn: [...cluster.workloadPrerequisites],
      };
      new DynamoPlatform("dynamo", {}, afterNodes);
      new DynamoObservability("mon", { graphName: "llama" }, afterNodes);
      // Without the option the release waits for nothing: what the tests below would see on the old wiring.
      new DynamoPlatform("bare", {}, { providers: { kubernetes: cluster.k8sProvider } });
      return {};
    });
    needed = [
      one(cap.resources, "aws:eks/nodeGroup:NodeGroup", "t-system-ng").urn,
      one(cap.resources, "aws:eks/addon:Addon", "t-ebs-csi").urn,
      one(cap.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "t-gp3").urn,
    ].sort();
  });

  it("why (facts): both charts run pre-install hook Jobs; NATS claims a volume of the default class", () => {
    assert.ok(CHART.preInstallHookJobs.some((j) => j.includes("webhook-cert-gen-job.yaml")));
    assert.ok(CHART.kubePrometheusStackHookJobs.length > 0);
    assert.deepEqual(CHART.natsJetStreamClaim.enabled, true);
    assert.equal(CHART.natsJetStreamClaim.storageClassName, null, "no class named: the default class binds it");
  });

  it("EfaCluster's workloadPrerequisites are the system node group, the EBS CSI add-on and the default class", () =>
    assert.equal(needed.length, 3));

  for (const name of ["dynamo-release", "mon-kube-prometheus-stack"])
    it(`${name} depends on all three`, () => {
      const deps = one(cap.resources, RELEASE, name).explicitDependsOn;
      assert.deepEqual(
        needed.filter((u) => !deps.includes(u)),
        [],
        `${name} waits for ${deps.join(", ") || "nothing"}`,
      );
    });

  it("the DCGM exporter and the PodMonitors wait for the stack release (and so for the nodes)", () => {
    const stack = one(cap.resources, RELEASE, "mon-kube-prometheus-stack").urn;
    assert.deepEqual(one(cap.resources, RELEASE, "mon-dcgm-exporter").explicitDependsOn, [stack]);
  });

  it("a platform created without the option waits for nothing (the check above can fail)", () =>
    assert.deepEqual(one(cap.resources, RELEASE, "bare-release").explicitDependsOn, []));
});
