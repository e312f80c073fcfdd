/**
 * The plan.md sections that compute something: the remote components' uncounted
 * children (from the args the program passes), the image's and GPU nodes' ready times (with and without the
 * node groups waiting for the build, and the graph waiting for its GPU nodes), and the policy table (never "not applicable" for a
 * policy that checked something).
 */
import { BUILD_MINUTES } from "../../components/image/sources";
import { strict as assert } from "assert";
import { gpuNodesWaitForImage, imageVsGpuNodes, schedulingEdges } from "../../tools/render/plan/build-order";
import { criticalPath } from "../../tools/render/plan/graph";
import type { GraphNode } from "../../tools/render/plan/graph";
import { policyMarkdown, remoteChildren } from "../../tools/render/plan/md-sections";

const node = (
  urn: string,
  type: string,
  dependsOn: string[] = [],
  inputs: Record<string, unknown> = {},
): GraphNode => ({ urn, name: urn, type, custom: true, remote: false, dependsOn, inputs });

describe("plan.md sections", () => {
  it("counts the VPC's subnets and NAT gateways from its args, and the EKS OIDC provider", () => {
    const rows = remoteChildren([
      {
        type: "awsx:ec2:Vpc",
        inputs: { availabilityZoneNames: ["a", "b", "c"], subnetSpecs: [{}, {}], natGateways: { strategy: "Single" } },
      },
      { type: "eks:index:Cluster", inputs: { createOidcProvider: true } },
    ]);
    const count = (kind: string) => rows.find((r) => r[0].includes(kind))?.[1];
    assert.equal(count("subnet:Subnet"), "6");
    assert.equal(count("natGateway"), "1 + 1");
    assert.equal(count("openIdConnectProvider"), "1");
    assert.equal(count("eks/cluster:Cluster"), "1");
    assert.deepEqual(remoteChildren([]), []);
  });

  it("the image is ready long after the GPU node group, and its targets are the image and what it waits for", () => {
    const nodes = [
      node("vpc", "awsx:ec2:Vpc"),
      node("eks", "eks:index:Cluster", ["vpc"]),
      node("lt", "aws:ec2/launchTemplate:LaunchTemplate", [], { instanceType: "p5en.48xlarge" }),
      node("ng", "aws:eks/nodeGroup:NodeGroup", ["eks", "lt"]),
      node("repo", "aws:ecr/repository:Repository"),
      node("img", "docker-build:index:Image", ["repo"]),
    ];
    assert.deepEqual(imageVsGpuNodes(nodes, ["p5en.48xlarge"]), {
      imageMinutes: BUILD_MINUTES.source + 0.1,
      gpuNodesMinutes: 23,
    });
    assert.equal(gpuNodesWaitForImage(nodes, ["p5en.48xlarge"]), false);
    assert.equal(imageVsGpuNodes(nodes, ["p4d.24xlarge"]), undefined, "no GPU node group of the pool's type");
    assert.equal(
      imageVsGpuNodes(
        nodes.filter((n) => n.urn !== "img"),
        ["p5en.48xlarge"],
      ),
      undefined,
      "no image build",
    );
  });

  it("GPU node groups that depend on the image build join after it; the graph's critical path runs through them", () => {
    const nodes = [
      node("eks", "eks:index:Cluster"),
      node("lt", "aws:ec2/launchTemplate:LaunchTemplate", [], { instanceType: "p5en.48xlarge" }),
      node("repo", "aws:ecr/repository:Repository"),
      node("img", "docker-build:index:Image", ["repo"]),
      node("image", "dynamo-efa:image:DynamoImage"),
      node("ng", "aws:eks/nodeGroup:NodeGroup", ["eks", "lt", "image"]),
      node("dgd", "kubernetes:nvidia.com/v1alpha1:DynamoGraphDeployment", ["img"]),
    ].map((n) =>
      n.urn === "image" ? { ...n, custom: false } : ["repo", "img"].includes(n.urn) ? { ...n, parent: "image" } : n,
    );
    assert.equal(gpuNodesWaitForImage(nodes, ["p5en.48xlarge"]), true, "through the image component's children");
    assert.deepEqual(imageVsGpuNodes(nodes, ["p5en.48xlarge"]), {
      imageMinutes: BUILD_MINUTES.source + 0.1,
      gpuNodesMinutes: BUILD_MINUTES.source + 8.1,
    });
    const waits = schedulingEdges(nodes, ["p5en.48xlarge"]);
    assert.deepEqual(waits.get("dgd"), ["ng"]);
    assert.deepEqual(
      criticalPath(nodes, waits).steps.map((s) => s.name),
      ["repo", "img", "ng", "dgd"],
    );
    assert.deepEqual(
      criticalPath(nodes).steps.map((s) => s.name),
      ["repo", "img", "dgd"],
      "without the wait the graph seems not to need its nodes",
    );
  });

  it("the policy table says passed for a policy that checked something, not applicable only when it checked nothing", () => {
    const md = policyMarkdown({
      results: [
        {
          name: "a",
          description: "",
          enforcementLevel: "mandatory",
          passed: true,
          violations: [],
          checked: 2,
          notApplicable: [],
        },
        {
          name: "b",
          description: "",
          enforcementLevel: "mandatory",
          passed: true,
          violations: [],
          checked: 0,
          notApplicable: ["no launch template"],
        },
        {
          name: "c",
          description: "",
          enforcementLevel: "advisory",
          passed: false,
          violations: [{ message: "bad" }],
          checked: 1,
          notApplicable: [],
        },
      ],
      mandatoryViolations: 0,
      advisoryViolations: 1,
      passed: true,
    }).join("\n");
    assert.match(md, /\| `a` \| mandatory \| 2 \| passed \|/);
    assert.match(md, /\| `b` \| mandatory \| 0 \| not applicable: no launch template \|/);
    assert.match(md, /\| `c` \| advisory \| 1 \| \*\*violated\*\* \(1\) \|/);
    assert.match(md, /- `c`: bad/);
  });
});
