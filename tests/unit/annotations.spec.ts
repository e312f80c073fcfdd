/**
 * One registry of annotation keys (components/_shared/annotations.ts): every `dynamo-efa/*` annotation the
 * inference component writes, on the graph, its pods and the prefetch DaemonSet, is a key of `Annotation`
 * and the configs below write every key the registry declares (none is dead). Each key stays only for a reader
 * outside the component: a graph key for a policy of the pack (which reads hand-written graphs too), a pod key for
 * Kubernetes (a changed pod-template annotation rolls the workers).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { Annotation } from "../../components/_shared/annotations";
import { renderInference } from "../../components/inference";
import { pool, resolved, STATED_MODEL } from "../helpers/inference-fixtures";

/** Every `dynamo-efa/*` key of any `annotations` object under `v`. */
function annotationKeys(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) annotationKeys(x, out);
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      if (k === "annotations" && x && typeof x === "object")
        for (const a of Object.keys(x)) if (a.startsWith("dynamo-efa/")) out.add(a);
      annotationKeys(x, out);
    }
  return out;
}

describe("annotation keys: one registry", () => {
  const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
  const rendered = [
    resolved("p5en-8x1gpu", "vllm", {
      imageCudaArchs: ["sm_90"],
      imageCudaToolkit: "12.9",
      workload: { isl: 4000, osl: 96 },
      kvCacheDtype: "fp8",
      modelCacheMode: "local-nvme",
      gpuPool: pool("p5en.48xlarge", 2, true, { ...NVME, hugepages2MiPerNode: 1024 }),
    }),
    resolved("p5en-8x1gpu", "trtllm"),
    resolved("p5en-1gpu", "vllm", STATED_MODEL),
    // DRA workers carry their claim's counts on the pod (what the policies read instead of extended resources).
    resolved("p5en-1gpu", "vllm", { gpuPool: pool("p5en.48xlarge", 2, true, { deviceAllocation: "dra" }) }),
  ].map((r) => renderInference(r));
  const written = annotationKeys(rendered);
  const registry = new Set<string>(Object.values(Annotation));

  it("every dynamo-efa/* annotation written is a registry key", () => {
    assert.ok(written.size > 0, "the renders wrote no dynamo-efa/* annotation at all");
    assert.deepEqual(
      [...written].filter((k) => !registry.has(k)),
      [],
    );
  });
  it("every registry key is written by some config (none is dead)", () => {
    assert.deepEqual(
      [...registry].filter((k) => !written.has(k)),
      [],
    );
  });

  it("every graph key is read by a policy of the pack; the pod keys roll the workers", () => {
    const rules = path.join(__dirname, "..", "..", "policy", "rules");
    const policyText = fs
      .readdirSync(rules)
      .map((f) => fs.readFileSync(path.join(rules, f), "utf8"))
      .join("\n");
    const podKeys: readonly string[] = [Annotation.PrefetchSha256, Annotation.EngineConfigSha256];
    const podWritten = annotationKeys(rendered.map((r) => r.graph.spec.services));
    assert.deepEqual(
      podKeys.filter((k) => !podWritten.has(k)),
      [],
      "the pod keys are written on the worker pods",
    );
    // The first-token check's key re-runs the check: it is on the Job's pod template, which a change replaces.
    const checkKeys: readonly string[] = [Annotation.FirstTokenChecksSha256];
    const checkWritten = annotationKeys(rendered.map((r) => r.firstTokenCheck?.job.spec.template));
    assert.deepEqual(
      checkKeys.filter((k) => !checkWritten.has(k)),
      [],
      "the check's key is written on its pod template",
    );
    assert.deepEqual(
      Object.entries(Annotation)
        .filter(([, key]) => !podKeys.includes(key) && !checkKeys.includes(key))
        .filter(([name]) => !new RegExp(`\\bAnnotation\\.${name}\\b`).test(policyText))
        .map(([, key]) => key),
      [],
      "graph annotations no policy reads",
    );
  });
});
