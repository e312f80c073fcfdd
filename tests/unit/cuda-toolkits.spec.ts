/**
 * The CUDA toolkit catalog: each toolkit's nvcc targets, the default, how each list
 * was verified, and parsing a toolkit version from config.
 */
import { strict as assert } from "assert";
import { CUDA_TOOLKITS, CudaToolkit, DEFAULT_CUDA_TOOLKIT } from "../../components/catalog";
import {
  formatArch,
  parseCudaToolkit,
  toolkitEvidence,
  toolkitTargets,
  toolkitsWith,
} from "../../components/catalog/cuda";

const CUDA12 = "sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90";
const CUDA13 = "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121";
const CUDA13_AF = "sm_90a sm_100a sm_100f sm_103a sm_103f sm_110a sm_110f sm_120a sm_120f sm_121a sm_121f";

describe("catalog: CUDA toolkits", () => {
  const bases = (tk: CudaToolkit) =>
    toolkitTargets(tk)
      .filter((t) => t.variant === "")
      .map(formatArch)
      .join(" ");
  const variants = (tk: CudaToolkit) =>
    toolkitTargets(tk)
      .filter((t) => t.variant !== "")
      .map(formatArch)
      .join(" ");
  const table: [CudaToolkit, string, string][] = [
    ["12.4", CUDA12, "sm_90a"],
    ["12.6", CUDA12, "sm_90a"],
    ["12.8", `${CUDA12} sm_100 sm_101 sm_120`, "sm_90a sm_100a sm_101a sm_120a"],
    [
      "12.9",
      `${CUDA12} sm_100 sm_101 sm_103 sm_120 sm_121`,
      "sm_90a sm_100a sm_100f sm_101a sm_101f sm_103a sm_103f sm_120a sm_120f sm_121a sm_121f",
    ],
    ["13.0", CUDA13, CUDA13_AF],
    ["13.1", CUDA13, CUDA13_AF],
    ["13.2", CUDA13, CUDA13_AF],
  ];
  for (const [tk, base, af] of table) {
    it(`CUDA ${tk}: base ${base.split(" ").length} targets, a/f: ${af}`, () => {
      assert.equal(bases(tk), base);
      assert.equal(variants(tk), af);
    });
  }

  it("lists every toolkit once, oldest first, with 12.9 as the default", () => {
    assert.deepEqual([...CUDA_TOOLKITS], ["12.4", "12.6", "12.8", "12.9", "13.0", "13.1", "13.2"]);
    assert.equal(DEFAULT_CUDA_TOOLKIT, "12.9");
  });

  it("targets are SASS-only, sorted, frozen and cached", () => {
    for (const tk of CUDA_TOOLKITS) {
      const list = toolkitTargets(tk);
      assert.ok(
        list.every((t) => !t.ptx),
        tk,
      );
      assert.ok(Object.isFrozen(list) && Object.isFrozen(list[0]), tk);
      assert.equal(toolkitTargets(tk), list, "cached");
      const nums = list.map((t) => t.sm);
      assert.deepEqual(
        nums,
        [...nums].sort((a, b) => a - b),
        tk,
      );
    }
  });

  it("13.x drops sm_50..72, renames sm_101 to sm_110 and adds sm_88", () => {
    for (const sm of [50, 52, 53, 60, 61, 62, 70, 72])
      assert.deepEqual(toolkitsWith(sm, ""), ["12.4", "12.6", "12.8", "12.9"]);
    assert.deepEqual(toolkitsWith(101, ""), ["12.8", "12.9"]);
    assert.deepEqual(toolkitsWith(110, ""), ["13.0", "13.1", "13.2"]);
    assert.deepEqual(toolkitsWith(88, ""), ["13.0", "13.1", "13.2"]);
    assert.deepEqual(toolkitsWith(100, "f"), ["12.9", "13.0", "13.1", "13.2"]);
  });

  it("records how each toolkit's list was verified", () => {
    assert.deepEqual(CUDA_TOOLKITS.map(toolkitEvidence), [
      "documented",
      "documented",
      "documented",
      "documented",
      "compiled",
      "assumed",
      "assumed",
    ]);
  });

  const accepted: [unknown, CudaToolkit][] = [
    ["12.9", "12.9"],
    ["13.0", "13.0"],
    ["12.9.1", "12.9"],
    [" 12.8 ", "12.8"],
    [12.9, "12.9"],
    [13, "13.0"],
    [13.1, "13.1"],
    ["13.2.0", "13.2"],
  ];
  for (const [value, tk] of accepted) {
    it(`parseCudaToolkit(${JSON.stringify(value)}) = ${tk}`, () =>
      assert.deepEqual(parseCudaToolkit(value, "cudaToolkit"), { ok: true, value: tk }));
  }

  const allowed = '(allowed: "12.4", "12.6", "12.8", "12.9", "13.0", "13.1", "13.2"; default "12.9")';
  const rejected: [unknown, string][] = [
    ["12.5", `unsupported CUDA toolkit "12.5"; did you mean "12.4" or "12.6" (the nearest supported)? ${allowed}`],
    ["11.8", `unsupported CUDA toolkit "11.8"; did you mean "12.4" (the oldest supported)? ${allowed}`],
    [11.8, `unsupported CUDA toolkit 11.8; did you mean "12.4" (the oldest supported)? ${allowed}`],
    ["13.4", `unsupported CUDA toolkit "13.4"; did you mean "13.2" (the newest supported)? ${allowed}`],
    ["12,9", `unsupported CUDA toolkit "12,9"; did you mean "12.9"? ${allowed}`],
    ["latest", `unsupported CUDA toolkit "latest" ${allowed}`],
    [undefined, `unsupported CUDA toolkit undefined ${allowed}`],
  ];
  for (const [value, reason] of rejected) {
    it(`parseCudaToolkit(${JSON.stringify(value)}) is rejected with the allowed list`, () => {
      assert.deepEqual(parseCudaToolkit(value, "image.cudaToolkit"), {
        ok: false,
        problems: [{ propertyPath: "image.cudaToolkit", reason }],
      });
    });
  }
});
