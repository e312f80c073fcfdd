/**
 * Acceptance of `cluster.deviceAllocation: dra`, on the whole program under the render's mocks: the two DRA drivers as
 * Helm releases instead of the device plugins, one ResourceClaimTemplate per worker role whose GPU and EFA requests
 * share the PCIe-root attribute (2 EFA per GPU on p5en, with 1- and 2-GPU workers), workers that use the claims and
 * carry no extended-resource count, every claim template valid against resource.k8s.io/v1 of the cluster's version;
 * refused below Kubernetes 1.34 (exit 2 naming the key); the default stack keeps the device plugins.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { readJson, Rendered, renderStack } from "./render-harness";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { loadFacts } from "../contracts/facts";
import { structuralProblems } from "../contracts/crd-validate";
import type { FieldNode } from "../contracts/extract/dgd-crd";
import { EFA_DEVICE_CLASS, GPU_DEVICE_CLASS, PCIE_ROOT_ATTRIBUTE } from "../../components/_shared/dra";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered YAML read as plain data, checked field by field below
type Obj = Record<string, any>;

const manifests = (dir: string): Obj[] =>
  fs
    .readdirSync(path.join(dir, "manifests"))
    .sort()
    .map((f) => YAML.parse(fs.readFileSync(path.join(dir, "manifests", f), "utf8")) as Obj);
const releases = (dir: string): string[] =>
  (readJson(dir, "resources.json") as Obj[])
    .filter((r) => r.type === "kubernetes:helm.sh/v3:Release")
    .map((r) => String(r.inputs.chart));
const text = (r: Rendered) => [...r.stdout, ...r.stderr].join("\n");

describe("render: cluster.deviceAllocation dra (acceptance)", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-dra-"));
  const runs: Record<string, Rendered> = {};
  const TWO_GPU = [
    ...["prefill", "decode"].flatMap((role) => [
      "--set",
      `inference.${role}.gpusPerWorker=2`,
      "--set",
      `inference.${role}.replicas=4`,
    ]),
  ];
  before(async () => {
    runs.dra = await renderStack("p5en-8gpu", path.join(tmp, "dra"), ["--set", "cluster.deviceAllocation=dra"]);
    runs.dra2 = await renderStack("p5en-8gpu", path.join(tmp, "dra2"), [
      "--set",
      "cluster.deviceAllocation=dra",
      ...TWO_GPU,
    ]);
    runs.dra134 = await renderStack("p5en-8gpu", path.join(tmp, "dra134"), [
      "--set",
      "cluster.deviceAllocation=dra",
      "--set",
      "cluster.kubernetesVersion=1.34",
    ]);
    runs.old = await renderStack("p5en-8gpu", path.join(tmp, "old"), [
      "--set",
      "cluster.deviceAllocation=dra",
      "--set",
      "cluster.kubernetesVersion=1.33", // the acceptance's command as written: a string key takes the text
    ]);
    runs.plain = await renderStack("p5en-8gpu", path.join(tmp, "plain"));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("exits 0 with the two DRA drivers and neither device plugin", () => {
    for (const k of ["dra", "dra2", "dra134"]) {
      assert.equal(runs[k].code, ExitCode.Ok, text(runs[k]));
      const charts = releases(runs[k].dir);
      assert.ok(charts.includes("aws-dranet"), charts.join(", "));
      assert.ok(charts.includes("oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"), k);
      assert.ok(!charts.includes("aws-efa-k8s-device-plugin") && !charts.includes("nvidia-device-plugin"), k);
    }
  });

  for (const [k, gpus] of [
    ["dra", 1],
    ["dra2", 2],
  ] as const)
    it(`claim templates pair each of ${gpus} GPU(s) with 2 EFA on one PCIe root; workers claim, count nothing`, () => {
      const all = manifests(runs[k].dir);
      const templates = all.filter((o) => o.kind === "ResourceClaimTemplate");
      assert.deepEqual(templates.map((t) => t.metadata.name).sort(), ["llm-decode-devices", "llm-prefill-devices"]);
      for (const t of templates) {
        const { requests, constraints } = t.spec.spec.devices;
        assert.equal(requests.length, 2 * gpus);
        for (let i = 0; i < gpus; i++) {
          assert.equal(requests[2 * i].exactly.deviceClassName, GPU_DEVICE_CLASS);
          assert.equal(requests[2 * i].exactly.count, 1);
          assert.equal(requests[2 * i + 1].exactly.deviceClassName, EFA_DEVICE_CLASS);
          assert.equal(requests[2 * i + 1].exactly.count, 2);
          assert.deepEqual(constraints[i], { requests: [`gpu-${i}`, `efa-${i}`], matchAttribute: PCIE_ROOT_ATTRIBUTE });
        }
      }
      const graph = all.find((o) => o.kind === "DynamoGraphDeployment")!;
      for (const c of graph.spec.components.filter((x: Obj) => x.type !== "frontend")) {
        assert.deepEqual(c.podTemplate.spec.resourceClaims, [
          { name: "devices", resourceClaimTemplateName: `llm-${c.type}-devices` },
        ]);
        const res = c.podTemplate.spec.containers[0].resources;
        assert.deepEqual(res.claims, [{ name: "devices" }]);
        assert.doesNotMatch(JSON.stringify(res), /nvidia\.com\/gpu|vpc\.amazonaws\.com\/efa/);
      }
    });

  it("plan.json, plan.md and the picture say which EFA devices each worker gets and by what rule", () => {
    const at = (k: string, f: string) => fs.readFileSync(path.join(runs[k].dir, f), "utf8");
    const workers = (k: string) => (readJson(runs[k].dir, "plan.json") as Obj).workers as Obj[];
    for (const w of workers("dra2").filter((x) => x.role !== "frontend"))
      assert.deepEqual(w.pairing, { allocation: "dra", efaPerGpu: 2, claimTemplate: `llm-${w.role}-devices` });
    assert.match(
      at("dra2", "plan.md"),
      /- prefill: each of 2 GPUs with 2 EFA devices on that GPU's PCIe root, by construction \(DRA claim from llm-prefill-devices/,
    );
    assert.match(
      at("dra", "topology.svg"),
      /EFA pairing: each GPU with its own 2 EFA devices on its PCIe root, by DRA claim/,
    );
    for (const w of workers("plain").filter((x) => x.role !== "frontend"))
      assert.deepEqual(w.pairing, { allocation: "device-plugin", efaPerGpu: 2 });
    assert.match(
      at("plain", "plan.md"),
      /- decode: 1 GPU \+ 2 EFA devices as counts; the EFA device plugin picks which/,
    );
    assert.match(at("plain", "topology.svg"), /EFA pairing: the EFA device plugin picks each worker/);
  });

  it("every claim template is valid against resource.k8s.io/v1 of the cluster's version (1.35 default, 1.34)", () => {
    for (const [k, v] of [
      ["dra", "1.35"],
      ["dra134", "1.34"],
    ] as const) {
      const schema = loadFacts<{ kinds: { ResourceClaimTemplate: FieldNode } }>(`k8s-resource-v1-${v}`).facts;
      for (const t of manifests(runs[k].dir).filter((o) => o.kind === "ResourceClaimTemplate")) {
        const { metadata: _m, ...rest } = t;
        assert.deepEqual(structuralProblems(schema.kinds.ResourceClaimTemplate, { ...rest, metadata: {} }, ""), []);
      }
    }
  });

  it("below Kubernetes 1.34 it exits 2 naming cluster.deviceAllocation and the fix", () => {
    assert.equal(runs.old.code, ExitCode.InvalidConfig);
    assert.match(
      text(runs.old),
      /- cluster\.deviceAllocation: "dra" needs Kubernetes 1\.34 or later.*set kubernetesVersion to 1\.34 or later/,
    );
  });

  it("the default stack keeps the device plugins, counts and no claims", () => {
    assert.equal(runs.plain.code, ExitCode.Ok, text(runs.plain));
    const charts = releases(runs.plain.dir);
    assert.ok(charts.includes("aws-efa-k8s-device-plugin") && charts.includes("nvidia-device-plugin"));
    assert.ok(!charts.includes("aws-dranet"));
    const all = manifests(runs.plain.dir);
    assert.equal(all.filter((o) => o.kind === "ResourceClaimTemplate").length, 0);
    assert.match(JSON.stringify(all.find((o) => o.kind === "DynamoGraphDeployment")), /"vpc\.amazonaws\.com\/efa":"2"/);
  });
});
