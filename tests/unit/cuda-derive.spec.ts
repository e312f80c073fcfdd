/**
 * Rendering one CUDA arch list into each build system's syntax (NVCC_GENCODE, TORCH_CUDA_ARCH_LIST, FlashInfer),
 * with properties that no rendered entry is one the toolkit or consumer rejects.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import {
  CUDA_TOOLKITS,
  CudaToolkit,
  fatArchs,
  flashinferCudaArchList,
  nvccGencode,
  parseArchList,
  torchCudaArchList,
} from "../../components/catalog";
import { formatArch, parseArchToken, toolkitTargets } from "../../components/catalog/cuda";
import { Checked, valueOf } from "../../components/_shared/problems";

/** The value of a catalog result the test expects to be valid. */
const valid = <T>(c: Checked<T>): T => valueOf("test", c);

describe("catalog: CUDA arch derivations", () => {
  const table: [string, CudaToolkit, string, string, string][] = [
    // tokens, toolkit, NVCC_GENCODE, TORCH_CUDA_ARCH_LIST, FLASHINFER_CUDA_ARCH_LIST
    ["sm_90", "12.9", "-gencode=arch=compute_90,code=sm_90", "9.0", "9.0"],
    [
      "sm_80 sm_86 sm_90+PTX",
      "12.4",
      "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90",
      "8.0;8.6;9.0+PTX",
      "8.0 8.6 9.0",
    ],
    [
      "sm_90a sm_100a sm_120f",
      "12.9",
      "-gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_100a,code=sm_100a -gencode=arch=compute_120f,code=sm_120f",
      "9.0a;10.0a;12.0",
      "9.0a 10.0a 12.0f",
    ],
    [
      "sm_100 sm_100f+PTX sm_103a",
      "13.0",
      "-gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_100f,code=sm_100f -gencode=arch=compute_100f,code=compute_100f -gencode=arch=compute_103a,code=sm_103a",
      "10.0+PTX;10.3a",
      "10.0 10.0f 10.3a",
    ],
    [
      "sm_121a+PTX",
      "13.2",
      "-gencode=arch=compute_121a,code=sm_121a -gencode=arch=compute_121a,code=compute_121a",
      "12.1a+PTX",
      "12.1a",
    ],
  ];
  for (const [tokens, tk, gencode, torch, flashinfer] of table) {
    it(`${tokens} (CUDA ${tk}) -> ${torch} | ${flashinfer}`, () => {
      const list = valid(parseArchList(tokens, tk, "archs"));
      assert.equal(nvccGencode(list), gencode);
      assert.equal(torchCudaArchList(list), torch);
      assert.equal(flashinferCudaArchList(list), flashinfer);
    });
  }

  it("fat (linux/amd64) for CUDA 12.9 renders without the Arm SoCs in all three syntaxes", () => {
    const fat = fatArchs("12.9");
    assert.equal(torchCudaArchList(fat), "8.0;8.6;8.9;9.0;10.0;12.0+PTX");
    assert.equal(flashinferCudaArchList(fat), "8.0 8.6 8.9 9.0 10.0 12.0");
    assert.match(nvccGencode(fat), /code=sm_120 -gencode=arch=compute_120,code=compute_120$/);
  });

  it("an empty list renders as empty strings", () => {
    assert.deepEqual([nvccGencode([]), torchCudaArchList([]), flashinferCudaArchList([])], ["", "", ""]);
  });

  const anyList = fc.constantFrom(...CUDA_TOOLKITS).chain((tk) =>
    fc.record({
      tk: fc.constant(tk),
      list: fc
        .array(fc.tuple(fc.constantFrom(...toolkitTargets(tk)), fc.boolean()), { minLength: 1, maxLength: 10 })
        .map((xs) =>
          valid(
            parseArchList(
              xs.map(([x, ptx]) => formatArch({ ...x, ptx })),
              tk,
              "p",
            ),
          ),
        ),
    }),
  );

  it("property: NVCC_GENCODE never names an arch the toolkit rejects, and embeds PTX exactly for +PTX entries", () => {
    fc.assert(
      fc.property(anyList, ({ tk, list }) => {
        const flags = nvccGencode(list).split(" ");
        for (const f of flags) {
          const m = /^-gencode=arch=compute_(\d+[af]?),code=(sm|compute)_(\d+[af]?)$/.exec(f);
          assert.ok(m && m[1] === m[3], f);
          assert.ok(parseArchToken(`sm_${m[1]}`, tk, "p").ok, `${f} on CUDA ${tk}`);
        }
        assert.equal(flags.filter((f) => f.includes("code=compute_")).length, list.filter((x) => x.ptx).length);
        assert.equal(flags.filter((f) => f.includes("code=sm_")).length, list.length);
      }),
    );
  });

  it("property: torch and FlashInfer entries are arch tokens of the toolkit with no f in torch", () => {
    fc.assert(
      fc.property(anyList, ({ tk, list }) => {
        for (const e of torchCudaArchList(list).split(";")) {
          assert.match(e, /^\d+\.\d(a)?(\+PTX)?$/);
          assert.ok(parseArchToken(e, tk, "p").ok, `${e} on CUDA ${tk}`);
        }
        for (const e of flashinferCudaArchList(list).split(" ")) {
          assert.match(e, /^\d+\.\d[af]?$/);
          assert.ok(parseArchToken(e, tk, "p").ok, `${e} on CUDA ${tk}`);
        }
      }),
    );
  });
});
