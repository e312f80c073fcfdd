/**
 * The serving estimate through the real render (the acceptance of docs/SERVING.md): `--set
 * inference.workload='{isl: 4000, osl: 96}'` on p5en-8gpu writes `serving` for vLLM and TensorRT-LLM, and on
 * that graph Llama-3.1-8B's disaggregation gain at ISL 1k/OSL 1k is below the one at ISL 8k/OSL 128, with
 * plan.md naming the winning layout of each (the other workloads are estimated from the rendered graph with
 * the pure functions from the stack's plan, through the same `servingInputOf` as the render, so two renders cover it).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ExitCode } from "../../tools/_shared/exit-codes";
import { renderStack, ROOT } from "../render/render-harness";
import { resolveWorkload } from "../../components/inference/args";
import { inferencePlan } from "../../components/inference/plan";
import { REPORTED_BATCHES, servingEstimate, ServingEstimate, servingInputOf } from "../../serving";
import { servingMarkdown } from "../../tools/render/plan/serving";
import { stackInference } from "../../tools/verify/target";

const WORKLOAD = "inference.workload={isl: 4000, osl: 96}";

describe("render: serving estimate in plan.json / plan.md", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-serving-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function render(label: string, sets: string[]) {
    const { code, dir, stdout, stderr } = await renderStack(
      "p5en-8gpu",
      path.join(tmp, label),
      sets.flatMap((s) => ["--set", s]),
    );
    assert.equal(code, ExitCode.Ok, [...stdout, ...stderr].join("\n"));
    const plan = JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8"));
    return { plan, md: fs.readFileSync(path.join(dir, "plan.md"), "utf8") };
  }

  function assertServing(s: ServingEstimate) {
    assert.deepEqual(s.workload, { isl: 4000, osl: 96, concurrency: 64, declared: true });
    assert.deepEqual(Object.keys(s.roles.decode.decodeStepMs), REPORTED_BATCHES.map(String));
    assert.equal(s.roles.decode.contextTokens, 4096);
    for (const v of [
      s.roles.prefill.prefillMs,
      s.roles.prefill.requestsPerSecond,
      s.roles.decode.requestsPerSecond,
      s.ttftMs,
      s.itlMs,
      s.aggregated.requestsPerSecond,
      s.aggregated.ttftMs,
      s.aggregated.itlMs,
      s.disaggGain,
    ])
      assert.ok(typeof v === "number" && v > 0, JSON.stringify(s));
    for (const v of [
      s.ttftP50Ms,
      s.ttftP90Ms,
      s.itlP50Ms,
      s.itlP90Ms,
      s.tokensPerSecondPerGpu,
      s.aggregated.tokensPerSecondPerGpu,
    ])
      assert.ok(typeof v === "number" && v > 0, JSON.stringify(s));
    assert.ok(s.ttftP90Ms! >= s.ttftP50Ms!);
    const u = s.uncertainty.ranges;
    for (const [v, r] of [
      [s.ttftMs, u.ttftMs],
      [s.itlMs, u.itlMs],
      [s.tokensPerSecondPerGpu, u.tokensPerSecondPerGpu],
      [s.aggregated.tokensPerSecondPerGpu, u.aggregatedTokensPerSecondPerGpu],
    ] as const)
      assert.ok(r && r[0] <= v! * 1.001 && v! <= r[1] * 1.001, `${v} outside ${JSON.stringify(r)}`);
    assert.ok(
      s.recommended.prefill >= 1 && s.recommended.decode >= 1 && s.recommended.prefill + s.recommended.decode <= 16,
    );
    assert.deepEqual(
      [s.recommended.nodes.total, s.recommended.fitsPool],
      [2, true],
      "whole nodes per role, in the pool",
    );
    assert.equal(s.calibration.scaled, false);
  }

  /** The serving TTFT moves the KV cache at the fit section's expected time, not its line-rate bound. */
  function assertKvFromFit(plan: {
    serving: ServingEstimate;
    fit: { role: string; kvTransferMsPerPromptToken: number }[];
  }) {
    const prefill = plan.fit.find((f) => f.role === "prefill")!;
    const expected = prefill.kvTransferMsPerPromptToken * plan.serving.workload.isl;
    assert.ok(
      Math.abs(plan.serving.roles.prefill.kvTransferMs - expected) < 0.01,
      `${plan.serving.roles.prefill.kvTransferMs} vs ${expected}`,
    );
  }

  let vllmMaxBatch = 0;
  let vllmServing: ServingEstimate | undefined;

  it("vLLM: plan.json has serving (prefill ms, decode step ms by batch 1..128 at ISL + OSL, TTFT, ITL, aggregated, gain, split)", async () => {
    const r = await render("vllm", [WORKLOAD]);
    assertServing(r.plan.serving);
    assertKvFromFit(r.plan);
    assert.match(r.md, /## Serving estimate/);
    vllmMaxBatch = r.plan.serving.roles.decode.maxBatch;
    vllmServing = r.plan.serving;
  });

  it("TensorRT-LLM: the same section, its KV capacity from TensorRT-LLM's memory fraction", async () => {
    const r = await render("trtllm", [WORKLOAD, "inference.backend=trtllm"]);
    assertServing(r.plan.serving);
    assert.notEqual(r.plan.serving.roles.decode.maxBatch, vllmMaxBatch, "the fit differs by backend");
  });

  it("Llama-3.1-8B on this graph: the gain at ISL 1k/OSL 1k is below the one at ISL 8k/OSL 128, and plan.md names each winner", () => {
    const { resolved } = stackInference(ROOT, path.join(ROOT, "stacks", "Pulumi.p5en-8gpu.yaml"));
    const base = servingInputOf(inferencePlan(resolved), resolved.pool);
    assert.ok(!("why" in base), JSON.stringify(base));
    const at = (isl: number, osl: number) => {
      const e = servingEstimate({ ...base, workload: resolveWorkload({ isl, osl }) }) as ServingEstimate;
      assert.ok(!("why" in e));
      return { e, md: servingMarkdown({ serving: e }).join("\n") };
    };
    const short = at(1000, 1000);
    const long = at(8000, 128);
    assert.ok(short.e.disaggGain! < long.e.disaggGain!, `${short.e.disaggGain} vs ${long.e.disaggGain}`);
    console.log(
      `      ISL 1k/OSL 1k: gain ${short.e.disaggGain} (${short.e.winner}); ISL 8k/OSL 128: gain ${long.e.disaggGain} (${long.e.winner})`,
    );
    const said = {
      disaggregated: /\*\*Disaggregation pays for this workload\*\*.*the range excludes 1/,
      aggregated: /\*\*Disaggregation does not pay for this workload\*\*.*the range excludes 1/,
      "too close to call": /\*\*Too close to call\*\*.*npm run measure -- <stack> --twin/,
    } as const;
    for (const x of [short, long]) assert.match(x.md, said[x.e.winner]);
  });

  /** Renders with a recommended split set; the split must render exit 0 on the same stack (R1). */
  async function rendersWith(label: string, sets: string[], e: ServingEstimate) {
    const split = [
      `inference.prefill.replicas=${e.recommended.prefill}`,
      `inference.decode.replicas=${e.recommended.decode}`,
    ];
    const r = await render(label, [...sets, ...split]);
    assert.deepEqual(
      [r.plan.serving.roles.prefill.replicas, r.plan.serving.roles.decode.replicas],
      [e.recommended.prefill, e.recommended.decode],
    );
  }

  it("p5en-8gpu's recommended split renders exit 0 when set (the vLLM workload above, and the prefill-heavy one whose advice needed 3 nodes)", async () => {
    await rendersWith("split", [WORKLOAD], vllmServing!);
    const heavy = "inference.workload={isl: 3000, osl: 300, concurrency: 128, ttftMs: 500, itlMs: 20}";
    const h = await render("heavy", [heavy]);
    assert.equal(h.plan.serving.recommended.fitsPool, true);
    await rendersWith("heavy-split", [heavy], h.plan.serving);
  });

  it("with kvTransport ucx the KV time spans the published UCX and TCP figures (up to ~98 s for 8B at ISL 8000)", async () => {
    const r = await render("ucx", [
      "inference.kvTransport=ucx",
      "inference.maxModelLen=16384",
      "inference.workload={isl: 8000, osl: 256, concurrency: 8}",
    ]);
    const p = r.plan.serving.roles.prefill;
    assert.ok(p.kvTransferMsRange, JSON.stringify(p));
    assert.ok(p.kvTransferMsRange[0] < p.kvTransferMs && p.kvTransferMs < p.kvTransferMsRange[1]);
    assert.ok(p.kvTransferMsRange[1] > 90000, `${p.kvTransferMsRange[1]}`);
    assert.ok(r.plan.serving.uncertainty.ranges.ttftMs[1] > 90000);
    assert.match(r.md, /across the published UCX\/TCP figures/);
  });
});
