/**
 * Per-consumer arch lists: each consumer's list obeys its own rules, and a list a consumer rejects comes back
 * as problems (never a throw) naming the consumer, the arch and the fix. The property test is the "make the class impossible"
 * check: whatever valid list goes in, the torch list that comes out only holds entries torch accepts.
 */
import * as assert from "assert";
import fc from "fast-check";
import { Checked, valueOf } from "../../components/_shared/problems";
import { CUDA_TOOLKITS, consumerArchLists, fatArchs, parseArchList } from "../../components/catalog";
import { formatArch, platformReason, toolkitTargets } from "../../components/catalog/cuda";
import { ARCH_CONSUMERS, torchAcceptedArchs } from "../../components/catalog/archs";

/** The value of a catalog result the test expects to be valid. */
const valid = <T>(c: Checked<T>): T => valueOf("test", c);
const checkedLists = (tokens: string, toolkit: (typeof CUDA_TOOLKITS)[number] = "12.9", torch = "2.10") =>
  consumerArchLists(valid(parseArchList(tokens, toolkit, "archs")), { toolkit, torch }, "cudaArchs");
const lists = (tokens: string, toolkit?: (typeof CUDA_TOOLKITS)[number], torch?: string) =>
  valid(checkedLists(tokens, toolkit, torch));
/** `path: reason` of each problem a rejected result returns; [] for a value. */
const reasons = (c: Checked<unknown>): string[] =>
  c.ok ? [] : c.problems.map((p) => `${p.propertyPath}: ${p.reason}`);

describe("catalog: per-consumer arch lists", () => {
  it("fat (linux/amd64, CUDA 12.9, torch 2.10): no 10.1, no 8.7 anywhere; FlashInfer gets a for Hopper+; EP kernels 9.0;10.0", () => {
    const l = valid(consumerArchLists(fatArchs("12.9"), { toolkit: "12.9", torch: "2.10" }, "cudaArchs"));
    assert.deepStrictEqual(
      { torch: l.torch, flashinfer: l.flashinfer, epKernels: l.epKernels },
      {
        torch: "8.0;8.6;8.9;9.0;10.0;12.0+PTX",
        flashinfer: "8.0 8.6 8.9 9.0a 10.0a 12.0a",
        epKernels: "9.0;10.0",
      },
    );
    assert.doesNotMatch(l.nvcc, /sm_87|sm_101/);
  });

  it("torch rejects what nvcc accepts: sm_101 on CUDA 12.9 (arm64 fat), sm_88 on CUDA 13.0", () => {
    const arm = reasons(
      consumerArchLists(fatArchs("12.9", "linux/arm64"), { toolkit: "12.9", torch: "2.10" }, "image.cudaArchs"),
    );
    assert.strictEqual(arm.length, 1);
    assert.match(
      arm[0],
      /^image\.cudaArchs: torch's extension builder \(TORCH_CUDA_ARCH_LIST: LMCache's CUDA kernels\) of torch 2\.10 rejects sm_101 \(TORCH_CUDA_ARCH_LIST entry "10\.1": ValueError "Unknown CUDA arch \(10\.1\) or GPU not supported"\); sm_101 is Jetson Thor under CUDA 12\.x; torch >= 2\.9 only knows it as 11\.0 \(sm_110, CUDA 13\); drop sm_101 from cudaArchs/,
    );
    assert.match(
      reasons(checkedLists("sm_88 sm_90", "13.0"))[0],
      /rejects sm_88 .*"8\.8".*torch 2\.10 accepts 7\.0, 7\.2, 7\.5, 8\.0/,
    );
    assert.match(reasons(checkedLists("sm_90", "12.9", "2.7"))[0], /no accepted-arch list for torch 2\.7; add a row/);
  });

  it("variants: a stays a (torch and FlashInfer), f maps to base for torch and stays f for FlashInfer", () => {
    assert.deepStrictEqual(lists("sm_90a sm_100f sm_120f"), {
      nvcc: "-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_100f,code=sm_100f -gencode=arch=compute_120f,code=sm_120f",
      torch: "9.0a;10.0;12.0",
      flashinfer: "9.0a 10.0f 12.0f",
      epKernels: "9.0;10.0",
    });
  });

  it("EP kernels: {9.0, 10.0} ∩ the list, empty (step skipped) without Hopper/B200", () => {
    assert.strictEqual(lists("sm_80 sm_89").epKernels, "");
    assert.strictEqual(lists("sm_103 sm_120").epKernels, "");
    assert.strictEqual(lists("sm_80 sm_100").epKernels, "10.0");
  });

  it("platform: the Arm SoC archs are named with the product and the platform", () => {
    assert.match(
      platformReason("linux/amd64", 121) ?? "",
      /^sm_121 is DGX Spark GB10, an Arm SoC: a linux\/amd64 image never runs on it/,
    );
    assert.strictEqual(platformReason("linux/arm64", 121), undefined);
    assert.strictEqual(platformReason("linux/amd64", 90), undefined);
  });

  it("every consumer is described for messages and plans", () => {
    assert.deepStrictEqual(Object.keys(ARCH_CONSUMERS).sort(), ["epKernels", "flashinfer", "nvcc", "torch"]);
  });

  it("property: for any list consumerArchLists accepts, every torch and EP entry is one torch accepts", () => {
    const accepted = torchAcceptedArchs("2.10")!;
    const anyList = fc.constantFrom(...CUDA_TOOLKITS).chain((tk) =>
      fc.record({
        tk: fc.constant(tk),
        tokens: fc.array(fc.tuple(fc.constantFrom(...toolkitTargets(tk)), fc.boolean()), {
          minLength: 1,
          maxLength: 8,
        }),
      }),
    );
    fc.assert(
      fc.property(anyList, ({ tk, tokens }) => {
        const list = valid(
          parseArchList(
            tokens.map(([t, ptx]) => formatArch({ ...t, ptx })),
            tk,
            "p",
          ),
        );
        const checked = consumerArchLists(list, { toolkit: tk, torch: "2.10" }, "p");
        if (!checked.ok) return true; // rejected up front: never reaches a build
        const l = checked.value;
        for (const entry of [...l.torch.split(";"), ...l.epKernels.split(";")].filter((x) => x !== "")) {
          assert.ok(
            accepted.includes(entry.replace(/\+PTX$/, "")),
            `${entry} from ${list.map(formatArch).join(" ")} on ${tk}`,
          );
        }
        assert.doesNotMatch(l.flashinfer, /\+PTX| {2}/);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
