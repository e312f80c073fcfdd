/**
 * One cluster, many models, rendered offline with the real program: the cluster stack `p5en-cluster` (no GPU pool,
 * no graph; its handoff as ONE typed output) and the model stacks `p5en-llama-8b` and `p5en-llama-70b` (each a
 * StackReference, its own EfaGpuPool and graph, nothing of the cluster). Both model stacks read the cluster's output
 * from the file they name, held here to the cluster stack's render; they collide nowhere; destroying one would
 * remove nothing the cluster or the other owns; each plan prices its own GPUs apart from the shared cluster.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { files, readJson, Rendered, renderStack, ROOT } from "./render-harness";
import { RENDER_FILES } from "../../tools/render/render";
import { readClusterHandoff } from "../../program/handoff";

interface Res {
  type: string;
  name: string;
  urn: string;
  parent: string | null;
  retainOnDelete: boolean;
  inputs: Record<string, unknown>;
}

const CLUSTER = "p5en-cluster";
const MODELS = ["p5en-llama-8b", "p5en-llama-70b"] as const;

/** Every Kubernetes object a render writes, as `<kind> <namespace>/<name>`. */
function objects(dir: string): string[] {
  const m = path.join(dir, "manifests");
  return fs
    .readdirSync(m)
    .map((f) => YAML.parse(fs.readFileSync(path.join(m, f), "utf8")))
    .map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`);
}

describe("render: a cluster stack and two model stacks on it", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "model-stacks-"));
  const out: Record<string, Rendered> = {};
  const res = (s: string) => readJson(out[s].dir, "resources.json") as Res[];
  before(async () => {
    for (const s of [CLUSTER, ...MODELS]) out[s] = await renderStack(s, tmp);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const s of [CLUSTER, ...MODELS])
    it(`${s}: exits 0 offline with no other argument and writes every file`, () => {
      assert.equal(out[s].code, 0, [...out[s].stdout, ...out[s].stderr].join("\n"));
      for (const f of RENDER_FILES) assert.ok(files(out[s].dir).includes(f), `${s}: ${f} missing`);
    });

  it("the cluster stack renders no graph and no GPU pool, and exports the handoff as one typed output", () => {
    const types = res(CLUSTER).map((r) => r.type);
    for (const absent of [
      "dynamo-efa:inference:DisaggInference",
      "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment",
      "dynamo-efa:cluster:EfaGpuPool",
      "dynamo-efa:image:DynamoImage",
    ])
      assert.ok(!types.includes(absent), absent);
    assert.deepEqual(
      res(CLUSTER)
        .filter((r) => r.type === "aws:eks/nodeGroup:NodeGroup")
        .map((r) => r.name),
      ["dynamo-efa-system-ng"],
    );
    assert.ok(!objects(out[CLUSTER].dir).some((o) => o.startsWith("DynamoGraphDeployment")));
    const outputs = readJson(out[CLUSTER].dir, "outputs.json");
    assert.deepEqual(Object.keys(outputs).sort(), ["cluster", "clusterName", "kubeconfig"]);
    assert.deepEqual(readClusterHandoff(outputs.cluster, "clusterStack").problems, []);
    assert.equal(outputs.cluster.kubeconfig, "[secret]", "the kubeconfig is a secret inside the output");
    const plan = readJson(out[CLUSTER].dir, "plan.json");
    assert.deepEqual([plan.gpus.provisioned, plan.workers.length, plan.image], [0, 0, undefined]);
  });

  it("the model stacks read the cluster's output from the recorded file, which is the cluster stack's render", () => {
    const recorded = JSON.parse(fs.readFileSync(path.join(ROOT, "stacks", "outputs", `${CLUSTER}.json`), "utf8"));
    assert.deepEqual(
      recorded,
      readJson(out[CLUSTER].dir, "outputs.json"),
      `stacks/outputs/${CLUSTER}.json is stale: copy out/${CLUSTER}/outputs.json of npm run render -- ${CLUSTER}`,
    );
  });

  for (const s of MODELS)
    it(`${s}: a StackReference to the cluster stack, its own pool and graph, and no VPC, EKS cluster or platform release`, () => {
      const r = res(s);
      const refs = r.filter((x) => x.type === "pulumi:pulumi:StackReference");
      assert.deepEqual(
        refs.map((x) => x.inputs.name),
        [CLUSTER],
      );
      for (const t of [
        "awsx:ec2:Vpc",
        "aws:ec2/vpc:Vpc",
        "eks:index:Cluster",
        "aws:eks/cluster:Cluster",
        "dynamo-efa:cluster:EfaCluster",
        "dynamo-efa:platform:DynamoPlatform",
      ])
        assert.ok(!r.some((x) => x.type === t), `${s} has a ${t}`);
      assert.deepEqual(
        r.filter((x) => x.type === "kubernetes:helm.sh/v3:Release").map((x) => x.name),
        [],
        "no Helm release at all: the platform, device plugins and monitoring are the cluster's",
      );
      const pool = r.filter((x) => x.parent?.endsWith(`EfaGpuPool::${s.replace("p5en-", "")}`)).map((x) => x.type);
      assert.deepEqual(pool.sort(), [
        "aws:ec2/launchTemplate:LaunchTemplate",
        "aws:ec2/placementGroup:PlacementGroup",
        "aws:eks/nodeGroup:NodeGroup",
      ]);
      assert.equal(objects(out[s].dir).filter((o) => o.startsWith("DynamoGraphDeployment")).length, 1);
    });

  it("the two model stacks collide nowhere: Kubernetes objects, pool labels, claims and names are disjoint", () => {
    const [a, b] = MODELS.map((s) => objects(out[s].dir));
    assert.deepEqual(
      a.filter((o) => b.includes(o)),
      [],
    );
    const cluster = objects(out[CLUSTER].dir);
    for (const s of MODELS)
      assert.deepEqual(
        objects(out[s].dir).filter((o) => cluster.includes(o)),
        [],
        s,
      );
    const labels = MODELS.map((s) => {
      const ng = res(s).find((x) => x.type === "aws:eks/nodeGroup:NodeGroup")!;
      return (ng.inputs.labels as Record<string, string>)["dynamo-efa/pool"];
    });
    assert.deepEqual(labels, ["llama-8b", "llama-70b"]);
    // Every graph's workers select only their own pool's nodes.
    for (const [i, s] of MODELS.entries()) {
      const dgd = YAML.stringify(
        fs
          .readdirSync(path.join(out[s].dir, "manifests"))
          .filter((f) => f.includes("dynamographdeployment"))
          .map((f) => YAML.parse(fs.readFileSync(path.join(out[s].dir, "manifests", f), "utf8"))),
      );
      assert.ok(dgd.includes(`dynamo-efa/pool: ${labels[i]}`), `${s} selects its pool`);
      assert.ok(!dgd.includes(`dynamo-efa/pool: ${labels[1 - i]}`), `${s} never selects the other's`);
    }
  });

  it("a model stack that takes another's name on the same cluster is refused at render, naming the other stack", async () => {
    const r = await renderStack("p5en-llama-8b", path.join(tmp, "clash"), ["--set", "graphName=llama-70b"]);
    assert.equal(r.code, 2, r.stdout.join("\n"));
    const err = r.stderr.join("\n");
    for (const kind of ["graph", "pool", "namespace"])
      assert.match(
        err,
        new RegExp(
          `graphName: the ${kind} name "llama-70b" is also stack p5en-llama-70b's on the cluster stack p5en-cluster`,
        ),
      );
  });

  for (const s of MODELS)
    it(`${s}: its names are claimed first: the pool and every graph object wait for the claims, which never adopt`, () => {
      const r = readJson(out[s].dir, "resources.json") as (Res & { dependsOn: string[]; provider?: string })[];
      const claims = r.filter((x) => x.name.startsWith("dynamo-efa-claim-")).map((x) => x.urn);
      assert.equal(claims.length, 3);
      const waits = r.filter(
        (x) =>
          x.type === "aws:eks/nodeGroup:NodeGroup" ||
          (x.type.startsWith("kubernetes:") && !x.name.startsWith("dynamo-efa-claim-")),
      );
      for (const x of waits) for (const c of claims) assert.ok(x.dependsOn.includes(c), `${x.name} waits for ${c}`);
      // A create of an existing object fails instead of adopting it: a second stack stops at its claim.
      const provider = r.find((x) => x.type === "pulumi:providers:kubernetes")!;
      assert.equal(String(provider.inputs.upsertExistingObjects), "false");
    });

  for (const s of MODELS)
    it(`${s}: destroying it removes nothing the cluster or the other model owns`, () => {
      const name = s.replace("p5en-", "");
      const allowed = (o: string) =>
        o.startsWith(`Namespace /${name}`) ||
        o.includes(` ${name}/`) ||
        o === `ConfigMap dynamo-efa-claims/graph-${name}` ||
        o === `ConfigMap dynamo-efa-claims/pool-${name}` ||
        o === `ConfigMap dynamo-efa-claims/namespace-${name}` ||
        o === `ConfigMap monitoring/dynamo-${name}-dashboard`;
      assert.deepEqual(
        objects(out[s].dir).filter((o) => !allowed(o)),
        [],
        "every object is its own: its namespace, its claims, its dashboard",
      );
      const aws = res(s).filter((x) => x.type.startsWith("aws:"));
      assert.ok(
        aws.every((x) => x.parent?.includes("EfaGpuPool")),
        "its only AWS resources are its pool's",
      );
      assert.deepEqual(
        res(s)
          .filter((x) => x.retainOnDelete)
          .map((x) => x.name),
        [],
        "nothing kept past its destroy",
      );
    });

  it("each model plan prices its own GPUs, and the shared cluster apart at the cluster stack's own cost", () => {
    const cluster = readJson(out[CLUSTER].dir, "plan.json");
    for (const s of MODELS) {
      const p = readJson(out[s].dir, "plan.json");
      assert.deepEqual(
        p.cost.lines.map((l: { item: string }) => l.item),
        [`GPU pool ${s.replace("p5en-", "")}`],
      );
      assert.equal(p.costPerHourUsd, 126.6);
      assert.equal(
        p.sharedCluster.usdPerHour,
        cluster.costPerHourUsd,
        "the shared cluster costs what the cluster stack's plan says",
      );
      assert.match(
        fs.readFileSync(path.join(out[s].dir, "plan.md"), "utf8"),
        /### Shared cluster: ~\$0\.91\/hour, paid once by `organization\/dynamo-efa\/p5en-cluster`/,
      );
    }
    assert.equal(cluster.costPerHourUsd, 0.91);
  });
});
