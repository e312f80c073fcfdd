/**
 * CUDA arch lists: parsing a user's list against a toolkit (every bad entry at its index, one report), the
 * catalog's fat list per toolkit and platform, and "auto" from instance types.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import {
  ArchTarget,
  CUDA_TOOLKITS,
  CudaToolkit,
  INSTANCES,
  archCovers,
  autoArchs,
  fatArchs,
  instanceNames,
  parseArchList,
  resolveCudaArchs,
} from "../../components/catalog";
import { formatArch, toolkitHas, toolkitTargets, validTokenList } from "../../components/catalog/cuda";
import { Checked, Problem, valueOf } from "../../components/_shared/problems";

const fmt = (list: readonly ArchTarget[]) => list.map(formatArch).join(" ");
/** The problems of a catalog result the test expects to be rejected (returned, never thrown). */
const problemsOf = (c: Checked<unknown>): readonly Problem[] =>
  c.ok ? assert.fail("expected problems, got a value") : c.problems;
/** The value of a catalog result the test expects to be valid. */
const valid = <T>(c: Checked<T>): T => valueOf("test", c);

describe("catalog: CUDA arch lists", () => {
  const explicit: [string | string[], CudaToolkit, string][] = [
    ["sm_90 sm_80", "12.9", "sm_80 sm_90"],
    ["sm_120,sm_90;sm_100a  sm_90", "12.8", "sm_90 sm_100a sm_120"],
    [["9.0", "sm_90", "compute_90"], "12.9", "sm_90+PTX"],
    [["sm_100f", "sm_100", "sm_100a", "sm_90a", "sm_90+PTX"], "13.0", "sm_90+PTX sm_90a sm_100 sm_100a sm_100f"],
    [["12.0f+PTX", "8.9"], "12.9", "sm_89 sm_120f+PTX"],
  ];
  for (const [tokens, tk, want] of explicit) {
    it(`parseArchList(${JSON.stringify(tokens)}, ${tk}) = ${want}`, () =>
      assert.equal(fmt(valid(parseArchList(tokens, tk, "archs"))), want));
  }

  it("collects every bad token of a list into one error with indexed paths", () => {
    assert.deepEqual(problemsOf(parseArchList(["sm_90", "sm_101", "sm_61", "sm_9O"], "13.0", "image.cudaArchs")), [
      {
        propertyPath: "image.cudaArchs[1]",
        reason: 'sm_101 was renamed sm_110 in CUDA 13.0; write "sm_110" for CUDA 13.0',
      },
      {
        propertyPath: "image.cudaArchs[2]",
        reason:
          "sm_61 was dropped in CUDA 13.0 (CUDA 13.0 supports sm_75 and newer); use cudaToolkit 12.9 or drop sm_61",
      },
      {
        propertyPath: "image.cudaArchs[3]",
        reason: `unknown CUDA arch "sm_9O"; did you mean "sm_90"? Valid for CUDA 13.0: ${validTokenList("13.0")} (also written 90, 9.0 or compute_90; append +PTX to embed PTX)`,
      },
    ]);
  });

  const badLists: [unknown, string][] = [
    [[], 'must list at least one arch token such as "sm_90" (or be "fat" or "auto")'],
    [" , ;", 'must list at least one arch token such as "sm_90" (or be "fat" or "auto")'],
    [{ sm: 90 }, 'must be a list of arch tokens such as ["sm_90", "sm_100"]; got {"sm":90}'],
  ];
  for (const [value, reason] of badLists) {
    it(`parseArchList(${JSON.stringify(value)}) is rejected`, () => {
      assert.deepEqual(problemsOf(parseArchList(value as string[], "12.9", "archs")), [
        { propertyPath: "archs", reason },
      ]);
    });
  }

  it("reports a non-string item at its index", () => {
    assert.deepEqual(problemsOf(parseArchList(["sm_90", 90 as unknown as string], "12.9", "archs")), [
      { propertyPath: "archs[1]", reason: 'must be a CUDA arch token such as "sm_90" or "sm_100a+PTX"; got 90' },
    ]);
  });

  // linux/amd64 (the default platform) leaves out the Arm SoCs: Orin sm_87, Thor sm_101/sm_110.
  const FAT_12 = "sm_80 sm_86 sm_89 sm_90+PTX";
  const FAT_128 = "sm_80 sm_86 sm_89 sm_90 sm_100 sm_120+PTX";
  const FAT_13 = FAT_128;
  const fat: [CudaToolkit, string][] = [
    ["12.4", FAT_12],
    ["12.6", FAT_12],
    ["12.8", FAT_128],
    ["12.9", FAT_128],
    ["13.0", FAT_13],
    ["13.1", FAT_13],
    ["13.2", FAT_13],
  ];
  for (const [tk, want] of fat) {
    it(`fat for CUDA ${tk} = ${want}`, () => assert.equal(fmt(fatArchs(tk)), want));
  }
  const fatArm: [CudaToolkit, string][] = [
    ["12.9", "sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_101 sm_120+PTX"],
    ["13.0", "sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_110 sm_120+PTX"],
  ];
  for (const [tk, want] of fatArm) {
    it(`fat for CUDA ${tk} on linux/arm64 keeps the Arm SoCs = ${want}`, () =>
      assert.equal(fmt(fatArchs(tk, "linux/arm64")), want));
  }

  it("an explicit list naming an Arm SoC arch for linux/amd64 is rejected, naming the arch and the platform", () => {
    const problems = problemsOf(
      resolveCudaArchs(["sm_90", "sm_101", "sm_87"], { toolkit: "12.9", platform: "linux/amd64" }, "image.cudaArchs"),
    );
    assert.deepEqual(
      problems.map((p) => p.propertyPath),
      ["image.cudaArchs", "image.cudaArchs"],
    );
    assert.match(
      problems[0].reason,
      /^sm_87 is Jetson Orin, an Arm SoC: a linux\/amd64 image never runs on it; drop sm_87/,
    );
    assert.match(problems[1].reason, /^sm_101 is Jetson Thor .*linux\/amd64/);
    assert.equal(
      fmt(valid(resolveCudaArchs(["sm_90", "sm_101"], { toolkit: "12.9", platform: "linux/arm64" }, "p"))),
      "sm_90 sm_101",
    );
    assert.equal(
      fmt(valid(resolveCudaArchs(["sm_90", "sm_101"], { toolkit: "12.9" }, "p"))),
      "sm_90 sm_101",
      "no platform given: toolkit rules only",
    );
  });

  const auto: [string[], CudaToolkit, string][] = [
    [["p5en.48xlarge"], "12.9", "sm_90"],
    [["p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge"], "12.4", "sm_90"],
    [["p4d.24xlarge", "p4de.24xlarge"], "13.0", "sm_80"],
    [["p6-b200.48xlarge", "p5en.48xlarge"], "12.8", "sm_90 sm_100"],
    [["p6-b300.48xlarge"], "12.9", "sm_103"],
    [["g5.48xlarge", "g6.12xlarge", "g6e.xlarge"], "12.6", "sm_86 sm_89"],
    [["g7e.48xlarge"], "12.8", "sm_120"],
  ];
  for (const [types, tk, want] of auto) {
    it(`auto for ${types.join(", ")} on CUDA ${tk} = ${want}`, () =>
      assert.equal(fmt(valid(autoArchs(types, tk, "gpuPools"))), want));
  }

  it("auto reports unknown types and archs the toolkit lacks, each at its index", () => {
    assert.deepEqual(
      problemsOf(autoArchs(["p5en.48xlarg", "p6-b300.48xlarge", "p6-b200.48xlarge"], "12.6", "instanceTypes")),
      [
        {
          propertyPath: "instanceTypes[0]",
          reason: 'unknown GPU instance type "p5en.48xlarg"; did you mean "p5en.48xlarge"?',
        },
        {
          propertyPath: "instanceTypes[1]",
          reason:
            "p6-b300.48xlarge has B300 GPUs (sm_103): sm_103 needs CUDA 12.9 or newer, but cudaToolkit is 12.6; raise cudaToolkit or remove p6-b300.48xlarge",
        },
        {
          propertyPath: "instanceTypes[2]",
          reason:
            "p6-b200.48xlarge has B200 GPUs (sm_100): sm_100 needs CUDA 12.8 or newer, but cudaToolkit is 12.6; raise cudaToolkit or remove p6-b200.48xlarge",
        },
      ],
    );
    assert.deepEqual(problemsOf(autoArchs([], "12.9", "instanceTypes")), [
      { propertyPath: "instanceTypes", reason: "needs at least one GPU instance type to derive archs from" },
    ]);
  });

  const resolved: [Parameters<typeof resolveCudaArchs>[0], string[] | undefined, CudaToolkit, string][] = [
    ["fat", undefined, "13.0", FAT_13],
    ["auto", ["p5en.48xlarge", "p6-b200.48xlarge"], "12.9", "sm_90 sm_100"],
    [["sm_90a", "sm_100a"], undefined, "12.8", "sm_90a sm_100a"],
    ["sm_90a sm_120f", undefined, "12.9", "sm_90a sm_120f"],
    ["9.0", undefined, "12.9", "sm_90"],
  ];
  for (const [spec, types, tk, want] of resolved) {
    it(`resolveCudaArchs(${JSON.stringify(spec)}) on CUDA ${tk} = ${want}`, () => {
      assert.equal(
        fmt(
          valid(resolveCudaArchs(spec, { toolkit: tk, ...(types ? { instanceTypes: types } : {}) }, "image.cudaArchs")),
        ),
        want,
      );
    });
  }

  const unresolved: [unknown, string[] | undefined, string][] = [
    [
      "fta",
      undefined,
      'unknown cudaArchs "fta"; did you mean "fat"? Use "fat", "auto" or a list of arch tokens such as ["sm_90", "sm_100"]',
    ],
    [
      "Auto",
      undefined,
      'unknown cudaArchs "Auto"; did you mean "auto"? Use "fat", "auto" or a list of arch tokens such as ["sm_90", "sm_100"]',
    ],
    [
      "everything",
      undefined,
      'unknown cudaArchs "everything". Use "fat", "auto" or a list of arch tokens such as ["sm_90", "sm_100"]',
    ],
    [
      "auto",
      undefined,
      '"auto" derives archs from the GPU instance types, but none were given; list arch tokens or use "fat"',
    ],
    [
      "auto",
      ["p6-b300.48xlarge"],
      '"auto": p6-b300.48xlarge has B300 GPUs (sm_103): sm_103 needs CUDA 12.9 or newer, but cudaToolkit is 12.8; raise cudaToolkit or remove p6-b300.48xlarge',
    ],
    [[], undefined, 'must list at least one arch token such as "sm_90" (or be "fat" or "auto")'],
  ];
  for (const [spec, types, reason] of unresolved) {
    it(`resolveCudaArchs(${JSON.stringify(spec)}) is rejected at the arg path`, () => {
      const opts = { toolkit: "12.8" as const, ...(types ? { instanceTypes: types } : {}) };
      assert.deepEqual(problemsOf(resolveCudaArchs(spec as string, opts, "image.cudaArchs")), [
        { propertyPath: "image.cudaArchs", reason },
      ]);
    });
  }

  const within = (list: readonly ArchTarget[], tk: CudaToolkit) => list.every((x) => toolkitHas(tk, x.sm, x.variant));

  it("property: fat never emits a target outside its toolkit, and PTX is on the newest entry only", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CUDA_TOOLKITS), (tk) => {
        const list = fatArchs(tk);
        assert.ok(within(list, tk), tk);
        assert.deepEqual(
          list.map((x) => x.ptx),
          list.map((_, i) => i === list.length - 1),
        );
      }),
    );
  });

  it("property: auto stays inside the toolkit and covers every instance it was derived from", () => {
    const names = instanceNames();
    fc.assert(
      fc.property(
        fc.constantFrom(...CUDA_TOOLKITS),
        fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 5 }),
        (tk, types) => {
          const checked = autoArchs(types, tk, "t");
          if (!checked.ok) {
            assert.ok(types.some((n) => !toolkitTargets(tk).some((x) => `sm_${x.sm}` === INSTANCES.get(n)!.smArch)));
            return;
          }
          const list = checked.value;
          assert.ok(within(list, tk));
          assert.ok(list.every((x) => !x.ptx && x.variant === ""));
          for (const n of types) assert.ok(archCovers(list, INSTANCES.get(n)!.smArch), n);
          assert.equal(list.length, new Set(types.map((n) => INSTANCES.get(n)!.smArch)).size);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("property: an explicit list comes back sorted, de-duplicated and within the toolkit", () => {
    const pick = fc.constantFrom(...CUDA_TOOLKITS).chain((tk) =>
      fc.record({
        tk: fc.constant(tk),
        picks: fc.array(fc.tuple(fc.constantFrom(...toolkitTargets(tk)), fc.boolean()), {
          minLength: 1,
          maxLength: 8,
        }),
      }),
    );
    fc.assert(
      fc.property(pick, ({ tk, picks }) => {
        const tokens = picks.map(([x, ptx]) => formatArch({ ...x, ptx }));
        const list = valid(parseArchList(tokens, tk, "p"));
        assert.ok(within(list, tk));
        assert.equal(new Set(list.map((x) => `${x.sm}${x.variant}`)).size, list.length);
        assert.deepEqual(fmt(list), fmt(valid(parseArchList(fmt(list), tk, "p"))), "idempotent");
        for (const x of list)
          assert.equal(
            x.ptx,
            picks.some(([p, ptx]) => ptx && p.sm === x.sm && p.variant === x.variant),
          );
      }),
    );
  });
});
