/**
 * The stacks `npm run bench` (./render.ts) renders, apart from the timing loop so that a spec
 * (tests/unit/bench-cases.spec.ts) can hold each case's config valid without timing anything: a key the
 * program renamed (the third case once set `cluster.gpuNodes.count`) fails there, not in the middle of a bench run.
 */

/** One bench case: a label and the render's command line (without `--out`). */
export interface BenchCase {
  readonly label: string;
  readonly argv: readonly string[];
}

export const BENCH_CASES: readonly BenchCase[] = [
  { label: "p5en-1gpu (1+1 workers)", argv: ["p5en-1gpu"] },
  { label: "p5en-8gpu (8+8 workers)", argv: ["p5en-8gpu"] },
  {
    label: "p5en-8gpu x4 nodes (16+16 workers)",
    argv: [
      "p5en-8gpu",
      "--set",
      "cluster.gpuPools.gpu.nodes=4",
      "--set",
      "inference.prefill.replicas=16",
      "--set",
      "inference.decode.replicas=16",
      "--set",
      "inference.placement=any",
    ],
  },
];
