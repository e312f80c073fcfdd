/**
 * The cluster and model stacks as plain data (program/config.ts `stackKindOf`, program/kinds.ts,
 * program/handoff.ts, program/claims.ts): which kind a config is, the keys each kind refuses, the typed handoff's
 * checked reader, and every guard a model stack must pass against its cluster, each at the key the user wrote with
 * the fix. The render of the shipped stacks is tests/render/model-stacks.spec.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { RawStackConfig, StackKind, stackKindOf } from "../../program/config";
import { ClusterHandoff, readClusterHandoff } from "../../program/handoff";
import { checkAnyStackConfig, checkModelStack, ModelStackConfig, wireModelStack } from "../../program/kinds";
import { claimObjects, sharedNames } from "../../program/claims";

const ROOT = path.join(__dirname, "..", "..");
/** The handoff the shipped cluster stack exports, as the offline render records it. */
const RECORDED = JSON.parse(fs.readFileSync(path.join(ROOT, "stacks", "outputs", "p5en-cluster.json"), "utf8"));
const handoff = (over: Partial<ClusterHandoff> = {}): ClusterHandoff => ({ ...RECORDED.cluster, ...over });

const POOL = { instanceType: "p5en.48xlarge", nodes: 2, availabilityZone: "us-east-2b" };
const model = (over: Partial<RawStackConfig> = {}): RawStackConfig => ({
  region: "us-east-2",
  clusterStack: "p5en-cluster",
  gpuPool: POOL,
  inference: { model: "meta-llama/Llama-3.1-8B-Instruct" },
  hfTokenSet: true,
  stack: "p5en-llama-8b",
  offline: true,
  ...over,
});
const lines = (ps: readonly { propertyPath: string; reason: string }[]) =>
  ps.map((p) => `${p.propertyPath}: ${p.reason}`);

describe("stack kinds: whole, cluster, model", () => {
  it("the kind follows from the keys a stack sets", () => {
    for (const [raw, kind] of [
      [{ cluster: { gpuPools: {} }, inference: {} }, StackKind.Whole],
      [{ inference: {} }, StackKind.Whole],
      [{ cluster: { gpuPools: {} } }, StackKind.Whole],
      [{ cluster: {} }, StackKind.Cluster],
      [{}, StackKind.Cluster],
      [{ clusterStack: "c", cluster: { gpuPools: {} } }, StackKind.Model],
    ] as const)
      assert.equal(stackKindOf({ hfTokenSet: false, ...raw }), kind, JSON.stringify(raw));
  });

  it("each kind refuses the keys of another, with why and the fix", () => {
    assert.deepEqual(lines(checkAnyStackConfig(model({ cluster: {}, platform: {} })).problems).slice(0, 2), [
      "cluster: not a key of a model stack: a model stack takes the cluster, its platform and its monitoring from its cluster stack (clusterStack); remove it",
      "platform: not a key of a model stack: a model stack takes the cluster, its platform and its monitoring from its cluster stack (clusterStack); remove it",
    ]);
    const cluster = checkAnyStackConfig({
      region: "us-east-2",
      cluster: {
        availabilityZones: ["us-east-2a", "us-east-2b"],
        deployFromInsideVpc: true,
        poolInstanceTypes: ["p5en.48xlarge"],
      },
      image: {},
      hfTokenSet: true,
      offline: true,
    });
    assert.deepEqual(
      cluster.problems.map((p) => p.propertyPath),
      ["image", "hfToken"],
    );
    assert.match(lines(cluster.problems)[0], /image: not a key of a cluster stack: a cluster stack serves no graph/);
  });

  it("a model stack's names default to the stack's (unique in the project); a name the stack cannot give is refused", () => {
    const { config } = checkModelStack(model());
    assert.equal(config?.graphName, "p5en-llama-8b");
    assert.deepEqual(lines(checkModelStack(model({ stack: "Prod_Llama" })).problems), [
      'graphName: defaults to the stack name "Prod_Llama", which is not a lower-case RFC 1123 name (it names the graph, its namespace and its GPU pool); set dynamo-efa:graphName',
    ]);
    assert.deepEqual(
      checkModelStack(model({ gpuPool: undefined, clusterStack: "a/b/c/d" })).problems.map((p) => p.propertyPath),
      ["clusterStack", "gpuPool"],
    );
  });
});

describe("the cluster handoff: one typed output, a checked reader", () => {
  it("the recorded output of p5en-cluster reads with no problem; the kubeconfig is redacted there", () => {
    const r = readClusterHandoff(RECORDED.cluster, "clusterStack");
    assert.deepEqual(r.problems, []);
    assert.equal(r.handoff?.kubeconfig, "[secret]");
  });

  it("absent, wrong-typed, missing, unknown and newer fields: every problem at once, at clusterStack.<field>", () => {
    assert.match(
      lines(readClusterHandoff(undefined, "clusterStack").problems)[0],
      /has no "cluster" output: deploy the cluster stack first/,
    );
    const { tags: _tags, platform, ...rest } = RECORDED.cluster;
    void _tags;
    const bad = {
      ...rest,
      platform: { ...platform, release: "dynamo-9" },
      version: 2,
      podImdsAccess: "false",
      extra: 1,
    };
    assert.deepEqual(lines(readClusterHandoff(bad, "clusterStack").problems), [
      'clusterStack.podImdsAccess: must be true or false; got "false" (a string)',
      "clusterStack.extra: unknown key; the keys here are version, stack, region, clusterName, kubernetesVersion, kubeconfig, vpcCidr, clusterSecurityGroupId, efaSecurityGroupId, nodeRoleArn, deviceAllocation, sharedStorageClass, claimsNamespace, privateSubnetIds, podImdsAccess, tags, poolInstanceTypes, systemNodes, platform, monitoring",
      "clusterStack.tags: is missing from the cluster stack's output",
      "clusterStack.version: is 2; this program reads version 1. Run the same dynamo-efa version in the cluster stack and the model stack (pulumi up the one that is behind)",
      'clusterStack.platform.release: is not a release this program supports; got "dynamo-9". Run the same dynamo-efa version in both stacks',
    ]);
    // Optional parts may be absent: no EFA group, no EFS class, no monitoring.
    const { efaSecurityGroupId: _e, monitoring: _m, ...minimal } = RECORDED.cluster;
    void _e;
    void _m;
    assert.deepEqual(readClusterHandoff(minimal, "clusterStack").problems, []);
  });
});

describe("a model stack against its cluster: the guards", () => {
  const own = checkModelStack(model()).config as ModelStackConfig;
  const wired = (c: ModelStackConfig, h: ClusterHandoff) => lines(wireModelStack(c, h).problems);

  it("the shipped cluster fits the shipped model: pool in the AZ's subnet, graph on the cluster's platform and monitoring", () => {
    const { model: m, problems } = wireModelStack(own, handoff());
    assert.deepEqual(problems, []);
    assert.equal(m!.subnetId, RECORDED.cluster.privateSubnetIds["us-east-2b"]);
    assert.equal(m!.inference.platformNamespace, "dynamo-system");
    assert.deepEqual(m!.inference.networkPolicy?.metricsNamespaces, ["monitoring"]);
    assert.equal(m!.observability?.prometheus, "existing");
    assert.deepEqual(m!.observability?.monitorLabels, { release: "kube-prometheus-stack" });
    assert.equal(m!.observability?.dcgmExporter, false, "the cluster runs the one DCGM exporter");
    assert.equal(m!.gpuPool.nodeSelector["dynamo-efa/pool"], "p5en-llama-8b");
  });

  it("a release other than the platform's is refused with both fixes", () => {
    assert.deepEqual(wired({ ...own, release: "seed" }, handoff()), [
      'release: is "seed", but the cluster stack organization/dynamo-efa/p5en-cluster runs the Dynamo platform of release "dynamo-1.6" (chart 1.6.2): a graph must be written for the operator that serves it. Set dynamo-efa:release: dynamo-1.6 here, or move the cluster stack to seed first (its dynamo-efa:release, then pulumi up there)',
    ]);
  });

  it("what the pool needs from the cluster: its region, a subnet in its AZ, the EFA group, a served type", () => {
    const h = handoff({ region: "us-west-2", efaSecurityGroupId: undefined, poolInstanceTypes: ["p5.48xlarge"] });
    assert.deepEqual(
      wireModelStack({ ...own, pool: { ...POOL, availabilityZone: "us-east-2c" } }, h).problems.map(
        (p) => p.propertyPath,
      ),
      ["aws:region", "gpuPool.availabilityZone", "gpuPool.efa", "gpuPool.instanceType"],
    );
    // The cluster's device allocation reaches the pool's facts, which the graph's device requests follow.
    const dra = wireModelStack(own, handoff({ deviceAllocation: "dra" }));
    assert.deepEqual(dra.problems, []);
    assert.equal(dra.model?.gpuPool.deviceAllocation, "dra");
    assert.equal(
      wireModelStack(own, handoff()).model?.gpuPool.deviceAllocation,
      undefined,
      "device plugins: the default",
    );
    assert.match(
      wired(
        { ...own, pool: { ...POOL, instanceType: "p4d.24xlarge" } },
        handoff({ deviceAllocation: "dra", poolInstanceTypes: ["p4d.24xlarge"] }),
      ).join("\n"),
      /gpuPool\.instanceType: .* allocates devices with DRA, .* p4d\.24xlarge has 4 EFA devices for 8 GPUs/,
    );
  });

  it("an AMI of another Kubernetes minor than the cluster's, a cache or monitoring the cluster does not have", () => {
    const c = {
      ...own,
      pool: { ...POOL, amiReleaseVersion: "1.34.2-20260714" },
      inference: { ...own.inference, modelCache: { storageClassName: "efs", sizeGiB: 100 } },
    };
    assert.deepEqual(
      wireModelStack(c, handoff({ monitoring: undefined })).problems.map((p) => p.propertyPath),
      ["inference.modelCache", "observability", "gpuPool.amiReleaseVersion"],
    );
  });
});

describe("a model stack's namespace is its own", () => {
  it("the cluster's claims namespace is refused, at the key that named it", () => {
    const own = checkModelStack(model()).config as ModelStackConfig;
    const at = (c: ModelStackConfig) => wireModelStack(c, handoff()).problems;
    const explicit = at({ ...own, inference: { ...own.inference, namespace: "dynamo-efa-claims" } });
    assert.deepEqual(
      explicit.map((p) => p.propertyPath),
      ["inference.namespace"],
    );
    assert.match(
      explicit[0]!.reason,
      /claims namespace, where every model stack claims its names; .*Choose another \(the default is the graph's name, "p5en-llama-8b"\)/,
    );
    assert.deepEqual(
      at({ ...own, graphName: "dynamo-efa-claims" }).map((p) => p.propertyPath),
      ["graphName"],
    );
  });
});

describe("claims: the names a model stack takes on a shared cluster", () => {
  const a = { stack: "o/p/a", graphName: "llama-8b", poolName: "llama-8b", namespace: "llama-8b" };
  it("one ConfigMap per name, in the claims namespace, naming the stack", () => {
    assert.deepEqual(
      claimObjects(a, "dynamo-efa-claims").map((c) => [
        c.object.metadata.namespace,
        c.object.metadata.name,
        c.object.data.stack,
      ]),
      [
        ["dynamo-efa-claims", "graph-llama-8b", "o/p/a"],
        ["dynamo-efa-claims", "pool-llama-8b", "o/p/a"],
        ["dynamo-efa-claims", "namespace-llama-8b", "o/p/a"],
      ],
    );
  });
  it("two stacks collide exactly where a claim would", () => {
    assert.deepEqual(sharedNames(a, { ...a, stack: "o/p/b", graphName: "llama-70b", poolName: "llama-70b" }), [
      "namespace llama-8b",
    ]);
    assert.deepEqual(sharedNames(a, { stack: "o/p/b", graphName: "x", poolName: "x", namespace: "y" }), []);
  });
});
