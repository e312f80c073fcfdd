/**
 * Contract: GPU and EFA paired by construction (`cluster.deviceAllocation: dra`), held to the facts it rests on:
 * AWS's EKS guide (eks-device-management.json), the two DRA drivers (dranet.json, dra-driver-nvidia-gpu.json and their
 * charts), the AL2023 AMI (eks-ami-gpu-nodes.json), Dynamo's operator (dynamo-operator-dra.json), and the
 * `resource.k8s.io/v1` schema of every supported Kubernetes minor from DRA's GA on (k8s-resource-v1-<minor>.json).
 * Each claim template the graph renders is valid against the schema of each of those minors; each mutation that
 * breaks the schema or the pairing is caught.
 */
import { strict as assert } from "assert";
import { loadFacts } from "./facts";
import { crdProblems, structuralProblems } from "./crd-validate";
import { unknownValueKeys } from "./helm-contract";
import type { ChartFacts } from "./extract/helm-values";
import type { FieldNode } from "./extract/dgd-crd";
import { charts, kubernetes } from "../../components/versions";
import { EFA_DEVICE_CLASS, GPU_DEVICE_CLASS, PCIE_ROOT_ATTRIBUTE, pcieRootOf } from "../../components/_shared/dra";
import { DRA_MIN_KUBERNETES } from "../../components/cluster/validate";
import { efaDraDriverValues, gpuDraDriverValues } from "../../components/cluster/render";
import { ClaimTemplate, renderClaimTemplates } from "../../components/inference/device-claims";
import { renderInference, ServingRole } from "../../components/inference";
import { toV1beta1 } from "../../components/inference/dgd-v1beta1";
import { release } from "../../components/releases";
import { efaPerGpu, instance } from "../../components/catalog/instances";
import { pool, resolved } from "../helpers/inference-fixtures";

interface Guide {
  draRecommendedFromKubernetes: string;
  draMinimumKubernetes: string;
  efaDraDriver: { driver: string; deviceClass: string; helmInstall: string; notWithDevicePlugin: boolean };
  pairing: { matchAttribute: string; gpuDeviceClass: string; p5EfaPerGpuRoot: number };
  devicePlugin: { gpuEfaAffinity: string; alignment: string };
  gpuDraDriver: { chart: string; version: string; set: string[]; deviceClass: string; notWithDevicePlugin: boolean };
}
interface ResourceFacts {
  kubernetes: string;
  kinds: { ResourceClaimTemplate: FieldNode };
  enums: { DeviceAllocationMode: string[] };
  limits: { deviceRequests: number; deviceConstraints: number };
}

const guide = loadFacts<Guide>("eks-device-management").facts;
const dranet = loadFacts<{ driver: string; pcieRootFrom: string }>("dranet").facts;
const gpuDriver = loadFacts<{
  deviceClass: string;
  deviceClassSelector: string;
  gpuAllocationNeedsOverride: boolean;
  kubeletPluginDefaultNodeLabels: string[];
  pcieRootFrom: string;
}>("dra-driver-nvidia-gpu").facts;
const dranetChart = loadFacts<{ version: string; defaults: Record<string, unknown> }>("chart-aws-dranet").facts;
const ami = loadFacts<{
  gpuPresentLabel: string;
  gpuPresentLabelFromKubernetes: string;
  containerdCdiFromKubernetes: string;
  containerdCdiInEveryTemplate: boolean;
}>("eks-ami-gpu-nodes").facts;
const operator = loadFacts<Record<string, boolean>>("dynamo-operator-dra").facts;
const crd = loadFacts<{ group: string; kind: string; version: string; schema: FieldNode }>("dgd-crd-v1beta1").facts;

const minorOf = (v: string) => Number(v.split(".")[1]);
/** Every supported Kubernetes version DRA can run on, with its schema facts. */
const DRA_VERSIONS = kubernetes.supportedVersions.filter((v) => minorOf(v) >= minorOf(DRA_MIN_KUBERNETES));
const schemas = DRA_VERSIONS.map((v) => ({ v, f: loadFacts<ResourceFacts>(`k8s-resource-v1-${v}`).facts }));

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** What the API server refuses of a claim template beyond structure (validation of resource.k8s.io/v1). */
function semanticProblems(t: ClaimTemplate, f: ResourceFacts): string[] {
  const d = t.spec.spec.devices;
  const names = d.requests.map((r) => r.name);
  const out: string[] = [];
  if (d.requests.length > f.limits.deviceRequests)
    out.push(`${d.requests.length} requests > ${f.limits.deviceRequests}`);
  if ((d.constraints ?? []).length > f.limits.deviceConstraints) out.push("too many constraints");
  for (const r of d.requests) {
    if (!DNS_LABEL.test(r.name)) out.push(`request name ${r.name} is not a DNS label`);
    const one = (r as { exactly?: unknown; firstAvailable?: unknown }).firstAvailable === undefined;
    if (!one || r.exactly === undefined) out.push(`${r.name}: exactly one of exactly/firstAvailable`);
    if (r.exactly?.allocationMode === "ExactCount" && !(r.exactly.count >= 1)) out.push(`${r.name}: count < 1`);
  }
  if (new Set(names).size !== names.length) out.push("duplicate request names");
  for (const c of d.constraints ?? [])
    for (const n of c.requests) if (!names.includes(n)) out.push(`constraint names unknown request ${n}`);
  return out;
}

function allProblems(t: ClaimTemplate, f: ResourceFacts): string[] {
  const { metadata: _m, ...rest } = t;
  return [
    ...structuralProblems(f.kinds.ResourceClaimTemplate, { ...rest, metadata: {} }, ""),
    ...semanticProblems(t, f),
  ];
}

const dra = (over: Parameters<typeof resolved>[2] = {}, type = "p5en.48xlarge") =>
  resolved("p5en-8x1gpu", "vllm", { gpuPool: pool(type, 2, true, { deviceAllocation: "dra" }), ...over });
const templatesOf = (r: ReturnType<typeof dra>) => renderClaimTemplates(r).map((x) => x.template);

describe("contract: GPU and EFA paired by DRA claims (cluster.deviceAllocation: dra)", () => {
  describe("the drivers the cluster installs are the ones AWS's EKS guide names, at the pinned versions", () => {
    it("EFA: DRANET's driver dra.net, DeviceClass efa.networking.k8s.aws, chart eks/aws-dranet in kube-system", () => {
      assert.equal(guide.efaDraDriver.driver, dranet.driver);
      assert.equal(EFA_DEVICE_CLASS, guide.efaDraDriver.deviceClass);
      assert.equal(dranetChart.defaults["deviceClass.name"], EFA_DEVICE_CLASS);
      assert.deepEqual(efaDraDriverValues(["p5en.48xlarge"]).deviceClass, { create: true, name: EFA_DEVICE_CLASS });
      assert.match(
        guide.efaDraDriver.helmInstall,
        new RegExp(`eks/${charts.efaDraDriver.chart} --namespace kube-system$`),
      );
      assert.equal(charts.efaDraDriver.version, dranetChart.version);
    });
    it("GPU: NVIDIA's DRA driver, the OCI chart and version the guide installs, DeviceClass gpu.nvidia.com", () => {
      assert.equal(`${charts.gpuDraDriver.repo}/${charts.gpuDraDriver.chart}`, guide.gpuDraDriver.chart);
      assert.equal(charts.gpuDraDriver.version, guide.gpuDraDriver.version);
      assert.equal(GPU_DEVICE_CLASS, gpuDriver.deviceClass);
      assert.equal(GPU_DEVICE_CLASS, guide.gpuDraDriver.deviceClass);
      assert.equal(GPU_DEVICE_CLASS, guide.pairing.gpuDeviceClass);
    });
    it("the GPU driver's values: what the guide sets, the chart's own refusal without the override, no NFD label", () => {
      const v = gpuDraDriverValues() as {
        gpuResourcesEnabledOverride: boolean;
        resources: { computeDomains: { enabled: boolean } };
        kubeletPlugin: { affinity: unknown };
      };
      assert.ok(guide.gpuDraDriver.set.includes("gpuResourcesEnabledOverride=true"));
      assert.ok(guide.gpuDraDriver.set.includes("resources.computeDomains.enabled=false"));
      assert.equal(gpuDriver.gpuAllocationNeedsOverride, true);
      assert.equal(v.gpuResourcesEnabledOverride, true);
      assert.equal(v.resources.computeDomains.enabled, false);
      // nodeadm labels GPU nodes nvidia.com/gpu.present only from 1.35; DRA runs from 1.34, so the plugin must not
      // rely on the chart's default affinity (NFD or that label): it selects the GPU pools by their own label.
      assert.ok(gpuDriver.kubeletPluginDefaultNodeLabels.includes(ami.gpuPresentLabel));
      assert.ok(minorOf(ami.gpuPresentLabelFromKubernetes) > minorOf(DRA_MIN_KUBERNETES));
      assert.doesNotMatch(JSON.stringify(v.kubeletPlugin.affinity), /feature\.node|gpu\.present/);
    });
    it("both charts' values (not in the default stacks' render) are keys the pinned charts read; a typo is caught", () => {
      const efaChart = loadFacts<ChartFacts>("chart-aws-dranet").facts;
      const gpuChart = loadFacts<ChartFacts>("chart-dra-driver-nvidia-gpu").facts;
      assert.equal(gpuChart.version, charts.gpuDraDriver.version);
      assert.deepEqual(unknownValueKeys(efaChart, efaDraDriverValues(["p5en.48xlarge"])), []);
      assert.deepEqual(unknownValueKeys(gpuChart, gpuDraDriverValues()), []);
      assert.match(
        unknownValueKeys(gpuChart, { ...gpuDraDriverValues(), gpuResourcesEnabled: true }).join("\n"),
        /gpuResourcesEnabled: dra-driver-nvidia-gpu 0\.4\.1 reads no such key/,
      );
    });
    it("DRA from Kubernetes 1.34 (the guide's minimum and recommendation), with a schema fact for every minor", () => {
      assert.equal(DRA_MIN_KUBERNETES, guide.draMinimumKubernetes);
      assert.equal(DRA_MIN_KUBERNETES, guide.draRecommendedFromKubernetes);
      assert.deepEqual(
        schemas.map((s) => s.f.kubernetes),
        DRA_VERSIONS,
      );
      assert.ok(DRA_VERSIONS.includes(kubernetes.defaultVersion), "the default cluster can run DRA");
    });
    it("every node DRA can run on has CDI on in containerd (nodeadm), which NVIDIA's driver hands GPUs through", () => {
      // dra-driver-nvidia-gpu's kubelet plugin returns CDI devices for a prepared claim (cmd/gpu-kubelet-plugin/cdi.go);
      // containerd injects them only with enable_cdi, which nodeadm sets from kubelet 1.32 in both its templates.
      assert.equal(ami.containerdCdiInEveryTemplate, true);
      assert.ok(minorOf(DRA_MIN_KUBERNETES) >= minorOf(ami.containerdCdiFromKubernetes));
    });
    it("both drivers publish the PCIe root the same standard way, and the pairing matches on it", () => {
      assert.equal(PCIE_ROOT_ATTRIBUTE, guide.pairing.matchAttribute);
      assert.equal(dranet.pcieRootFrom, "GetPCIeRootAttributeByPCIBusID");
      assert.equal(gpuDriver.pcieRootFrom, dranet.pcieRootFrom);
      // The attribute is the first /sys/devices component of the device's path (deviceattribute/pci.go).
      assert.equal(pcieRootOf("/sys/devices/pci0000:10/0000:10:1c.0"), "pci0000:10");
      assert.equal(pcieRootOf("/sys/devices/pci0000:a0/0000:a0:01.0/0000:a1:00.0/0000:a2:1b.0"), "pci0000:a0");
      assert.equal(pcieRootOf("/sys/devices/virtual/infiniband/uverbs0"), undefined);
    });
  });

  describe("the claim templates", () => {
    const cases: [string, ReturnType<typeof dra>, number, number][] = [
      ["p5en, 1-GPU workers", dra(), 1, 2],
      [
        "p5en, 2-GPU workers",
        dra({ prefill: { replicas: 4, gpusPerWorker: 2 }, decode: { replicas: 4, gpusPerWorker: 2 } }),
        2,
        2,
      ],
      [
        "p5en, TP8 workers",
        dra({ prefill: { replicas: 1, gpusPerWorker: 8 }, decode: { replicas: 1, gpusPerWorker: 8 } }),
        8,
        2,
      ],
      ["p5, 1-GPU workers", dra({}, "p5.48xlarge"), 1, 4],
    ];
    for (const [label, r, gpus, efa] of cases)
      it(`${label}: each GPU its own request, paired with ${efa} EFA (the catalog's per GPU) on one PCIe root`, () => {
        assert.equal(efa, efaPerGpu(instance(r.pool.instanceType)));
        for (const t of templatesOf(r)) {
          const { requests, constraints } = t.spec.spec.devices;
          assert.equal(requests.length, 2 * gpus, t.metadata.name);
          for (let i = 0; i < gpus; i++) {
            assert.deepEqual(requests[2 * i].exactly, {
              deviceClassName: GPU_DEVICE_CLASS,
              allocationMode: "ExactCount",
              count: 1,
            });
            assert.deepEqual(requests[2 * i + 1].exactly, {
              deviceClassName: EFA_DEVICE_CLASS,
              allocationMode: "ExactCount",
              count: efa,
            });
            assert.deepEqual(constraints![i], {
              requests: [`gpu-${i}`, `efa-${i}`],
              matchAttribute: PCIE_ROOT_ATTRIBUTE,
            });
          }
        }
      });
    it("p5's four EFA per GPU root are the guide's", () =>
      assert.equal(efaPerGpu(instance("p5.48xlarge")), guide.pairing.p5EfaPerGpuRoot));

    it("every template is valid against resource.k8s.io/v1 of every supported minor from 1.34", () => {
      for (const [label, r] of cases)
        for (const t of templatesOf(r))
          for (const { v, f } of schemas)
            assert.deepEqual(allProblems(t, f), [], `${label} ${t.metadata.name} on ${v}`);
    });

    describe("what the schema and the API server refuse (each check can fail)", () => {
      const t = templatesOf(dra())[0];
      const f = schemas[0].f;
      const req = t.spec.spec.devices.requests;
      const edit = (devices: object) =>
        ({ ...t, spec: { spec: { devices: { ...t.spec.spec.devices, ...devices } } } }) as ClaimTemplate;
      const cases2: [string, ClaimTemplate, RegExp][] = [
        [
          "a misspelt field (pruned)",
          edit({ requests: [{ ...req[0], exactly: { ...req[0].exactly, deviceClass: "x" } }] }),
          /unknown field|required field deviceClassName/,
        ],
        [
          "an allocation mode outside the enum",
          edit({ requests: [{ ...req[0], exactly: { ...req[0].exactly, allocationMode: "Exact" } }] }),
          /is not one of/,
        ],
        [
          "a count that is a string",
          edit({ requests: [{ ...req[0], exactly: { ...req[0].exactly, count: "1" } }] }),
          /expected integer/,
        ],
        ["a request without a name", edit({ requests: [{ exactly: req[0].exactly }] }), /required field name/],
        [
          "a constraint over a request that does not exist",
          edit({ constraints: [{ requests: ["gpu-0", "efa-9"], matchAttribute: PCIE_ROOT_ATTRIBUTE }] }),
          /unknown request efa-9/,
        ],
        [
          "a request name that is not a DNS label",
          edit({ requests: [{ ...req[0], name: "GPU_0" }] }),
          /not a DNS label/,
        ],
      ];
      for (const [what, bad, re] of cases2) it(what, () => assert.match(allProblems(bad, f).join("\n"), re));
    });
  });

  describe("the workers (Dynamo's operator carries the claims and adds no GPU count of its own)", () => {
    it("the operator merges the pod template and the main container, and counts GPUs only from Dynamo-form resources", () => {
      assert.deepEqual(operator, {
        podTemplateSpecMergedWithOverride: true,
        mainContainerMergedByName: true,
        scalarGpuOnlyFromDynamoResources: true,
      });
    });
    it("the v1beta1 graph: claims in the pod template, no nvidia.com/gpu or vpc.amazonaws.com/efa; valid against the CRD", () => {
      const r = dra({ prefill: { replicas: 4, gpusPerWorker: 2 }, decode: { replicas: 4, gpusPerWorker: 2 } });
      const v = toV1beta1(renderInference(r).graph, release("dynamo-1.6").graph.runtimeVersionOverride!.version);
      assert.deepEqual(crdProblems(crd, v), []);
      for (const role of [ServingRole.Prefill, ServingRole.Decode]) {
        const c = v.spec.components.find((x) => x.type === role)!;
        assert.deepEqual(c.podTemplate.spec.resourceClaims, [
          { name: "devices", resourceClaimTemplateName: `llama-${role}-devices` },
        ]);
        const res = c.podTemplate.spec.containers[0].resources!;
        assert.deepEqual(res.claims, [{ name: "devices" }]);
        assert.doesNotMatch(JSON.stringify(res), /nvidia\.com\/gpu|vpc\.amazonaws\.com\/efa/);
      }
    });
    it("the device-plugin graph is as before: counts, no claims", () => {
      const g = renderInference(resolved("p5en-8x1gpu")).graph;
      assert.equal(renderClaimTemplates(resolved("p5en-8x1gpu")).length, 0);
      assert.doesNotMatch(JSON.stringify(g), /resourceClaims|claim-gpus/);
      assert.match(JSON.stringify(g), /"vpc\.amazonaws\.com\/efa":"2"/);
    });
  });

  it("the device plugin's alignment is AWS's word for the AL2023 accelerated AMIs only, the AMI of every GPU pool", () => {
    assert.equal(guide.devicePlugin.gpuEfaAffinity, "Automatic topology-awareness (EKS-optimized AL2023 AMIs only)");
    assert.match(
      guide.devicePlugin.alignment,
      /does not occur when using Bottlerocket EKS-optimized AMIs or custom AMIs/,
    );
    assert.equal(guide.efaDraDriver.notWithDevicePlugin && guide.gpuDraDriver.notWithDevicePlugin, true);
  });
});
