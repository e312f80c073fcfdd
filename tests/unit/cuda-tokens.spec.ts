/**
 * Single CUDA arch tokens: every spelling users write, accepted or rejected per toolkit with a hint (sm_101 on
 * 13.0 names sm_110), and parse/format round-trips on every canonical token.
 */
import { strict as assert } from "assert";
import fc from "fast-check";
import { ArchTarget, CUDA_TOOLKITS, CudaToolkit } from "../../components/catalog";
import {
  formatArch,
  computeCapability,
  parseArchToken,
  toolkitTargets,
  validTokenList,
} from "../../components/catalog/cuda";
import { Checked, valueOf } from "../../components/_shared/problems";

/** The value of a catalog result the test expects to be valid. */
const valid = <T>(c: Checked<T>): T => valueOf("test", c);
/** The one problem's reason of a result the test expects to be rejected. */
const reasonOf = (c: Checked<unknown>): string => (c.ok ? assert.fail("expected a problem") : c.problems[0].reason);

const t = (sm: number, variant: "" | "a" | "f" = "", ptx = false): ArchTarget => ({ sm, variant, ptx });
const VALID_13 = validTokenList("13.0");
const SYNTAX = "(also written 90, 9.0 or compute_90; append +PTX to embed PTX)";

describe("catalog: CUDA arch tokens", () => {
  const accepted: [string, CudaToolkit, ArchTarget][] = [
    ["sm_90", "12.9", t(90)],
    ["SM_90A", "12.9", t(90, "a")],
    ["sm_100f", "12.9", t(100, "f")],
    ["compute_90", "12.9", t(90, "", true)],
    ["compute_120f", "13.0", t(120, "f", true)],
    ["90", "12.4", t(90)],
    ["100a", "12.8", t(100, "a")],
    ["9.0", "12.6", t(90)],
    ["9.0a", "12.6", t(90, "a")],
    ["10.3f", "13.0", t(103, "f")],
    ["9.0+PTX", "12.9", t(90, "", true)],
    ["sm_120+ptx", "12.8", t(120, "", true)],
    [" sm_89 ", "13.0", t(89)],
    ["sm_101", "12.9", t(101)],
    ["sm_110", "13.0", t(110)],
    ["sm_88", "13.0", t(88)],
    ["sm_61", "12.9", t(61)],
  ];
  for (const [token, tk, want] of accepted) {
    it(`${JSON.stringify(token)} on CUDA ${tk} -> ${formatArch(want)}`, () =>
      assert.deepEqual(valid(parseArchToken(token, tk, "archs")), want));
  }

  const rejected: [string, CudaToolkit, string][] = [
    ["sm_101", "13.0", 'sm_101 was renamed sm_110 in CUDA 13.0; write "sm_110" for CUDA 13.0'],
    ["sm_101a", "13.2", 'sm_101a was renamed sm_110a in CUDA 13.0; write "sm_110a" for CUDA 13.2'],
    ["sm_110", "12.9", 'sm_110 is the CUDA 13.0 name of sm_101; write "sm_101" for CUDA 12.9'],
    ["sm_110", "12.6", "sm_110 needs CUDA 13.0 or newer, but cudaToolkit is 12.6; raise cudaToolkit or drop sm_110"],
    [
      "sm_61",
      "13.0",
      "sm_61 was dropped in CUDA 13.0 (CUDA 13.0 supports sm_75 and newer); use cudaToolkit 12.9 or drop sm_61",
    ],
    [
      "7.0",
      "13.1",
      "sm_70 was dropped in CUDA 13.0 (CUDA 13.1 supports sm_75 and newer); use cudaToolkit 12.9 or drop sm_70",
    ],
    ["sm_100", "12.6", "sm_100 needs CUDA 12.8 or newer, but cudaToolkit is 12.6; raise cudaToolkit or drop sm_100"],
    ["sm_103", "12.8", "sm_103 needs CUDA 12.9 or newer, but cudaToolkit is 12.8; raise cudaToolkit or drop sm_103"],
    ["sm_100f", "12.8", "sm_100f needs CUDA 12.9 or newer, but cudaToolkit is 12.8; raise cudaToolkit or drop sm_100f"],
    ["sm_88", "12.9", "sm_88 needs CUDA 13.0 or newer, but cudaToolkit is 12.9; raise cudaToolkit or drop sm_88"],
    [
      "sm_90f",
      "13.0",
      'sm_90 has no family ("f") variant; CUDA 13.0 has family ("f") targets only for sm_100f, sm_103f, sm_110f, sm_120f, sm_121f; write "sm_90" for the base target',
    ],
    [
      "sm_90f",
      "12.6",
      'sm_90 has no family ("f") variant; CUDA 12.6 has no family ("f") targets (they arrived in CUDA 12.9); write "sm_90" for the base target',
    ],
    [
      "8.0a",
      "12.8",
      'sm_80 has no arch-specific ("a") variant; CUDA 12.8 has arch-specific ("a") targets only for sm_90a, sm_100a, sm_101a, sm_120a; write "sm_80" for the base target',
    ],
    ["sm_9O", "13.0", `unknown CUDA arch "sm_9O"; did you mean "sm_90"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    ["9.O", "13.0", `unknown CUDA arch "9.O"; did you mean "9.0"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    ["sm90", "13.0", `unknown CUDA arch "sm90"; did you mean "sm_90"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    [
      "sm_95",
      "13.0",
      `unknown CUDA arch "sm_95"; did you mean "sm_75" or "sm_90"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`,
    ],
    ["sm_95a", "13.0", `unknown CUDA arch "sm_95a"; did you mean "sm_90a"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    ["hopper", "13.0", `unknown CUDA arch "hopper". Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    [
      "fat",
      "13.0",
      `unknown CUDA arch "fat"; "fat" is a whole-list keyword: pass it instead of a list, not inside one. Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`,
    ],
    ["sm_090", "13.0", `unknown CUDA arch "sm_090"; did you mean "sm_90"? Valid for CUDA 13.0: ${VALID_13} ${SYNTAX}`],
    ["", "13.0", 'must be a CUDA arch token such as "sm_90" or "sm_100a+PTX"; got ""'],
  ];
  for (const [token, tk, reason] of rejected) {
    it(`${JSON.stringify(token)} on CUDA ${tk} is rejected: ${reason.slice(0, 60)}`, () => {
      assert.deepEqual(parseArchToken(token, tk, "image.cudaArchs[0]"), {
        ok: false,
        problems: [{ propertyPath: "image.cudaArchs[0]", reason }],
      });
    });
  }

  it("acceptance: sm_101 is rejected on CUDA 13.0 with the sm_110 hint and accepted on 12.9", () => {
    assert.match(reasonOf(parseArchToken("sm_101", "13.0", "a")), /renamed sm_110 in CUDA 13\.0/);
    assert.deepEqual(valid(parseArchToken("sm_101", "12.9", "a")), t(101));
  });

  it("valid token lists name every target of the toolkit", () => {
    assert.equal(validTokenList("12.8").split(", ").length, toolkitTargets("12.8").length);
    assert.ok(VALID_13.startsWith("sm_75, sm_80,") && VALID_13.endsWith("sm_121a, sm_121f"));
  });

  const formats: [ArchTarget, string, string][] = [
    [t(90), "sm_90", "9.0"],
    [t(90, "a", true), "sm_90a+PTX", "9.0"],
    [t(100, "f"), "sm_100f", "10.0"],
    [t(121, "", true), "sm_121+PTX", "12.1"],
  ];
  for (const [target, token, cc] of formats) {
    it(`formatArch -> ${token}, compute capability ${cc}`, () => {
      assert.equal(formatArch(target), token);
      assert.equal(computeCapability(target.sm), cc);
    });
  }

  const anyTarget = fc
    .constantFrom(...CUDA_TOOLKITS)
    .chain((tk) =>
      fc.record({ tk: fc.constant(tk), target: fc.constantFrom(...toolkitTargets(tk)), ptx: fc.boolean() }),
    );

  it("property: parse(format(t)) is the identity on every canonical token of every toolkit", () => {
    fc.assert(
      fc.property(anyTarget, ({ tk, target, ptx }) => {
        const want = { ...target, ptx };
        assert.deepEqual(valid(parseArchToken(formatArch(want), tk, "p")), want);
      }),
    );
  });

  it("property: the other spellings (compute_, bare, dotted) name the same target", () => {
    fc.assert(
      fc.property(anyTarget, ({ tk, target }) => {
        const v = target.variant;
        assert.deepEqual(valid(parseArchToken(`${target.sm}${v}`, tk, "p")), target);
        assert.deepEqual(valid(parseArchToken(`${computeCapability(target.sm)}${v}`, tk, "p")), target);
        assert.deepEqual(valid(parseArchToken(`compute_${target.sm}${v}`, tk, "p")), { ...target, ptx: true });
      }),
    );
  });

  it("property: any string either parses to a target of the toolkit or returns exactly one problem", () => {
    const tokenish = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc
        .tuple(
          fc.constantFrom("sm_", "compute_", ""),
          fc.integer({ min: 0, max: 140 }),
          fc.constantFrom("", "a", "f", "b", "+PTX"),
        )
        .map(([p, n, s]) => `${p}${n}${s}`),
    );
    fc.assert(
      fc.property(fc.constantFrom(...CUDA_TOOLKITS), tokenish, (tk: CudaToolkit, token: string) => {
        const checked = parseArchToken(token, tk, "p");
        if (!checked.ok) {
          assert.equal(checked.problems.length, 1);
          return;
        }
        const got = checked.value;
        assert.ok(
          toolkitTargets(tk).some((x) => x.sm === got.sm && x.variant === got.variant),
          `${token} -> ${formatArch(got)}`,
        );
      }),
      { numRuns: 300 },
    );
  });
});
