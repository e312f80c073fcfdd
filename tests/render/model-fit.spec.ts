/**
 * The model-aware plan through the real render: the default stacks show their fit, 70B on one GPU
 * per worker exits 2 naming both roles, 70B on 4 GPUs per worker renders, a private model's stated
 * shape reaches the plan, and an unknown model renders with its fit unknown.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { ExitCode } from "../../tools/_shared/exit-codes";

const SEVENTY = "inference.model=meta-llama/Llama-3.1-70B-Instruct";

describe("render: model fit in plan.json / plan.md", function () {
  this.timeout(60000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-fit-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Renders `stack` with `--set` pairs into its own folder; the exit code, the output and the plan (when written). */
  async function render(stack: string, label: string, sets: string[]) {
    const lines: string[] = [];
    const out = path.join(tmp, label);
    const code = await runCli([stack, "--out", out, ...sets.flatMap((s) => ["--set", s])], {
      ...defaultDeps(),
      stdout: (l) => lines.push(l),
      stderr: (l) => lines.push(l),
    });
    const file = path.join(out, stack, "plan.json");
    const plan = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
    const md = plan ? fs.readFileSync(path.join(out, stack, "plan.md"), "utf8") : "";
    return { code, text: lines.join("\n"), plan, md };
  }

  for (const stack of ["p5en-1gpu", "p5en-8gpu"]) {
    it(`${stack}: Llama-3.1-8B bf16 at TP 1 shows 131072 KV bytes per token, ~15 GiB of weights, and a fit per worker`, async () => {
      const r = await render(stack, stack, []);
      assert.equal(r.code, ExitCode.Ok, r.text);
      assert.equal(r.plan.model.kvBytesPerToken, 131072);
      assert.equal(Math.round(r.plan.model.weightGiB), 15);
      assert.match(r.plan.model.source, /config\.json/);
      assert.deepEqual(
        r.plan.fit.map((f: { role: string }) => f.role),
        ["prefill", "decode"],
      );
      for (const f of r.plan.fit) {
        assert.equal(f.tensorParallel, 1);
        assert.ok(f.maxConcurrentAtMaxLen >= 1 && f.kvCapacityTokens >= 4096, JSON.stringify(f));
        assert.equal(f.kvTransport, "LIBFABRIC");
        assert.equal(f.kvLinkGbps, 400); // 2 EFA rails x 200 Gbps on p5en
        assert.equal(f.kvBytesAtMaxLen, 4096 * 131072);
        assert.ok(f.kvTransferMs > 0);
      }
      assert.match(r.md, /## Model: `meta-llama\/Llama-3\.1-8B-Instruct`/);
      assert.match(r.md, /4 GiB runtime reserve/);
    });
  }

  it("p5en-8gpu with Llama-3.1-70B on 1 GPU per worker exits 2 naming both roles and the weight size", async () => {
    const r = await render("p5en-8gpu", "70b-tp1", [SEVENTY]);
    assert.equal(r.code, ExitCode.InvalidConfig, r.text);
    for (const key of ["inference.prefill.gpusPerWorker", "inference.decode.gpusPerWorker"])
      assert.ok(r.text.includes(`- ${key}: (1) does not run the model`), r.text);
    assert.match(r.text, /131\.4 GiB of bf16 weights/);
    assert.match(r.text, /smallest gpusPerWorker that fits is 2/);
    assert.equal(r.plan, undefined);
  });

  it("p5en-8gpu with Llama-3.1-70B on 4 GPUs per worker, 2 + 2 replicas, renders with TP 4 numbers", async () => {
    const r = await render("p5en-8gpu", "70b-tp4", [
      SEVENTY,
      "inference.prefill={replicas: 2, gpusPerWorker: 4}",
      "inference.decode={replicas: 2, gpusPerWorker: 4}",
    ]);
    assert.equal(r.code, ExitCode.Ok, r.text);
    assert.equal(r.plan.model.kvBytesPerToken, 80 * 2 * 8 * 128 * 2);
    for (const f of r.plan.fit) {
      assert.equal(f.tensorParallel, 4);
      assert.ok(Math.abs(f.weightsGiBPerGpu - r.plan.model.weightGiB / 4) < 0.02, JSON.stringify(f));
      assert.equal(f.kvLinkGbps, 1600); // 8 EFA rails x 200 Gbps
    }
  });

  it("a private model with inference.modelShape and kvCacheDtype fp8: the plan uses the stated shape", async () => {
    const shape =
      "inference.modelShape={paramsB: 13, weightDtype: fp8, layers: 40, attentionHeads: 40, kvHeads: 8, headDim: 128, maxContext: 32768}";
    const r = await render("p5en-1gpu", "private", [
      "inference.model=acme/private-13b",
      shape,
      "inference.kvCacheDtype=fp8",
    ]);
    assert.equal(r.code, ExitCode.Ok, r.text);
    assert.equal(r.plan.model.known, true);
    assert.match(r.plan.model.source, /inference\.modelShape/);
    assert.equal(r.plan.model.kvBytesPerToken, 40 * 2 * 8 * 128 * 1);
    assert.equal(r.plan.model.weightBytes, 13e9);
  });

  it("TensorRT-LLM: the plan sizes KV as the free-gpu-memory-fraction of what is free after the weights, at the max-seq-len", async () => {
    const r = await render("p5en-1gpu", "trtllm", ["inference.backend=trtllm"]);
    assert.equal(r.code, ExitCode.Ok, r.text);
    const f = r.plan.fit[0];
    assert.equal(f.maxModelLen, 4096);
    assert.ok(Math.abs(f.kvCacheGiBPerGpu - (141 - f.weightsGiBPerGpu - 4) * 0.85) < 0.02, JSON.stringify(f));
  });

  it("an unknown model without modelShape renders and says its fit is unknown", async () => {
    const r = await render("p5en-1gpu", "unknown", ["inference.model=acme/private-13b"]);
    assert.equal(r.code, ExitCode.Ok, r.text);
    assert.equal(r.plan.model.known, false);
    assert.equal(r.plan.fit, undefined);
    assert.match(r.md, /Fit unknown: not in the model catalog/);
  });
});
