/**
 * The graph's namespace carries the strictest Pod Security Standard its pods meet, computed from the rendered pods
 * (components/inference/pod-security.ts), and the engines run under the runtime's default seccomp filter.
 */
import { strict as assert } from "assert";
import { GraphService } from "../../components/_shared/names";
import { InferenceSettings } from "../../components/inference/args";
import { renderGraph } from "../../components/inference/graph";
import { namespaceLevel, podViolations, PSA_ENFORCE_LABEL } from "../../components/inference/pod-security";
import { namespacePods, renderNamespace } from "../../components/inference/render";
import { IMAGE, pool, resolved } from "../helpers/inference-fixtures";

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const label = (over: Partial<InferenceSettings>) =>
  renderNamespace(resolved("p5en-1gpu", "vllm", over))?.metadata.labels[PSA_ENFORCE_LABEL];

describe("inference: Pod Security level of the graph's namespace", () => {
  const cases: [string, Partial<InferenceSettings>, string][] = [
    [
      "local-nvme (hostPath node cache, IPC_LOCK)",
      { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) },
      "privileged",
    ],
    ["EFA workers (IPC_LOCK is outside baseline)", { modelCacheMode: "none" }, "privileged"],
    [
      "no EFA, no node cache: every pod restricted",
      { modelCacheMode: "none", gpuPool: pool("p5en.48xlarge", 2, false) },
      "restricted",
    ],
  ];
  for (const [what, over, want] of cases) it(`${what}: ${want}`, () => assert.equal(label(over), want));

  it("the reasons name the pod, container and rule", () => {
    const r = resolved("p5en-1gpu", "vllm", { modelCacheMode: "none" });
    const { because } = namespaceLevel(namespacePods(r));
    assert.ok(because.includes(`${GraphService.Prefill}/main: adds IPC_LOCK`), because.join("\n"));
  });

  it("a container without a seccomp profile or still root is at most baseline", () => {
    const v = podViolations({
      name: "p",
      volumes: [{ name: "x", emptyDir: {} }],
      containers: [
        {
          name: "c",
          securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    });
    assert.deepEqual(v, { baseline: [], restricted: ["p/c: no seccomp profile"] });
  });

  it("the engines and the Frontend run with seccompProfile RuntimeDefault", () => {
    const g = renderGraph(resolved("p5en-1gpu", "trtllm"), IMAGE);
    for (const s of Object.values(g.spec.services))
      assert.deepEqual(s.extraPodSpec?.mainContainer?.securityContext?.seccompProfile, { type: "RuntimeDefault" });
  });

  it("every init container of every pod runs under seccomp RuntimeDefault, in every cache mode and backend (audit: cache-owner and model-prefetch had none)", () => {
    const missing: string[] = [];
    const inits = new Set<string>();
    for (const release of ["dynamo-1.6", "seed"] as const)
      for (const backend of ["vllm", "trtllm"] as const)
        for (const [mode, gpuPool] of [
          ["local-nvme", pool("p5en.48xlarge", 2, true, NVME)],
          ["none", pool("p5en.48xlarge", 2, true)],
        ] as const)
          for (const p of namespacePods(resolved("p5en-1gpu", backend, { release, modelCacheMode: mode, gpuPool })))
            for (const c of p.containers) {
              if (c.name !== "main" && c.name !== "idle") inits.add(c.name);
              if ((c.securityContext?.seccompProfile?.type ?? p.podSeccomp) !== "RuntimeDefault")
                missing.push(`${release} ${backend} ${mode}: ${p.name}/${c.name}`);
            }
    assert.deepEqual(missing, []);
    // The node cache's two and the seed Frontend's model-config are among those checked.
    for (const n of ["cache-owner", "model-prefetch", "model-config"]) assert.ok(inits.has(n), `${n} in ${[...inits]}`);
  });

  it("no split makes the EFA and local-nvme namespaces enforceable: the workers themselves need privileged", () => {
    const r = resolved("p5en-1gpu", "vllm", {
      modelCacheMode: "local-nvme",
      gpuPool: pool("p5en.48xlarge", 2, true, NVME),
    });
    const pods = namespacePods(r);
    const workers = pods.filter((p) => p.name === GraphService.Prefill || p.name === GraphService.Decode);
    assert.equal(workers.length, 2);
    // Without the prefetch DaemonSet (or the Frontend) the workers alone still fail baseline, on both counts.
    const alone = namespaceLevel(workers);
    assert.equal(alone.level, "privileged");
    for (const w of workers) {
      assert.ok(
        alone.because.some((b) => b.startsWith(`${w.name}: hostPath volume`)),
        alone.because.join("\n"),
      );
      assert.ok(
        alone.because.some((b) => b === `${w.name}/main: adds IPC_LOCK`),
        alone.because.join("\n"),
      );
    }
    // What is not a worker meets baseline on its own (the Frontend restricted): only the workers hold the level down.
    const rest = pods.filter((p) => !workers.includes(p) && !p.name.endsWith("-prefetch"));
    assert.equal(namespaceLevel(rest).level, "restricted", namespaceLevel(rest).because.join("\n"));
  });

  it("no label when the component does not create the namespace", () =>
    assert.equal(label({ createNamespace: false }), undefined));
});
