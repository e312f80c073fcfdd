/**
 * The numbers and versions the docs state, each computed once from the code that decides it: the client tools'
 * versions (`CLIENT_TOOLS`, held to tests/contracts/facts/client-tools.json), each shipped stack's cost and time to
 * Ready (its offline render's plan.json), and the image sources' build times and sizes
 * (components/catalog/images.ts). `tools/doc-facts/doc-facts.ts` writes them between the docs' markers.
 */
import { kubernetes } from "../../components/versions";
import { IMAGE_COSTS, LARGEST_IMAGE_GB, minutesText, planned, sizeText } from "../../components/catalog/images";
import { money, HOURS_PER_DAY } from "../render/plan/md-summary";
import type { Plan } from "../render/plan/plan";

/**
 * What the user's machine runs besides Node and the Pulumi CLI: the kubeconfig pulumi-eks writes calls `aws eks
 * get-token` (the program's Kubernetes provider, verify, measure and kubectl all use it), and kubectl is the README's
 * tool for logs and port-forwards. tests/contracts/client-tools.spec.ts holds these to the upstream sources.
 */
export const CLIENT_TOOLS = {
  /** The first AWS CLI releases whose `eks get-token` answers in the API version the kubeconfig asks for. */
  awsCli: { v2: "2.7.0", v1: "1.24.0", check: "aws --version" },
  /** kubectl is supported within this many minors of the API server, either side. */
  kubectl: { skewMinors: 1, check: "kubectl version --client" },
} as const;

/** `1.35` -> `1.36` with `by` 1. */
function minorPlus(version: string, by: number): string {
  const [major, minor] = version.split(".").map(Number) as [number, number];
  return `${major}.${minor + by}`;
}

/** What a value is computed from. */
export interface ValueSources {
  /** The offline render's plan of a shipped stack, with `sets` (`--set key=value`) when given. */
  readonly plan: (stack: string, sets?: readonly string[]) => Promise<Plan>;
}

type Value = (s: ValueSources) => string | Promise<string>;

const STACKS = ["p5en-8gpu", "p5en-1gpu", "p5en-cluster", "p5en-llama-8b", "p5en-llama-70b"] as const;

/** The layout of one cluster and two models: what the three stacks cost together, the shared cluster once. */
const sharedLayoutValues = (): Record<string, Value> => ({
  "cost-hour.p5en-cluster+models": async (s) => {
    const plans = await Promise.all(["p5en-cluster", "p5en-llama-8b", "p5en-llama-70b"].map((x) => s.plan(x)));
    return money(
      plans.reduce((sum, p) => sum + p.costPerHourUsd, 0),
      2,
    );
  },
});

/**
 * The layouts of 16 GPUs that fit Llama-3.1-70B on the 70B model stack's pool (docs/CLUSTER-STACKS.md "The 70B
 * layout"): each tensor-parallel size with the balanced split the plan recommends for it, and the plan's serving
 * estimate of that layout at the default workload.
 */
/** One decimal of an estimate the plan always has for a layout that fits (none is a bug, not a doc value). */
function fixed1(v: number | null | undefined, what: string): string {
  if (v === null || v === undefined) throw new Error(`the plan estimates no ${what} for a layout that fits`);
  return v.toFixed(1);
}

const layout70bValues = (): Record<string, Value> => {
  const stack = "p5en-llama-70b";
  const plan = (s: ValueSources, tp: number) =>
    s.plan(stack, [
      ...[`inference.prefill.gpusPerWorker=${tp}`, `inference.decode.gpusPerWorker=${tp}`],
      ...[`inference.prefill.replicas=${8 / tp}`, `inference.decode.replicas=${8 / tp}`],
    ]);
  return Object.assign(
    {},
    ...[2, 4, 8].map((tp) => ({
      [`layout-70b.tp${tp}.ttft`]: async (s: ValueSources) => fixed1((await plan(s, tp)).serving!.ttftMs, "TTFT"),
      [`layout-70b.tp${tp}.itl`]: async (s: ValueSources) => fixed1((await plan(s, tp)).serving!.itlMs, "ITL"),
      [`layout-70b.tp${tp}.rps`]: async (s: ValueSources) =>
        fixed1((await plan(s, tp)).serving!.requestsPerSecond, "requests/s"),
      [`layout-70b.tp${tp}.split`]: async (s: ValueSources) => {
        const r = (await plan(s, tp)).serving!.recommended;
        return r ? `${r.prefill} + ${r.decode}` : "none";
      },
    })),
  );
};

const stackValues = (stack: string): Record<string, Value> => ({
  [`cost-hour.${stack}`]: async (s) => money((await s.plan(stack)).costPerHourUsd, 2),
  [`cost-day.${stack}`]: async (s) => money((await s.plan(stack)).costPerHourUsd * HOURS_PER_DAY, 0),
  [`ready.${stack}`]: async (s) => `${(await s.plan(stack)).criticalPathDetail.minutes} min`,
  [`gpus.${stack}`]: async (s) => {
    const g = (await s.plan(stack)).gpus;
    return `${g.requested} of ${g.provisioned}`;
  },
  [`nodes.${stack}`]: async (s) =>
    (await s.plan(stack)).gpuPools.map((p) => `${p.nodes} x ${p.instanceType}`).join(" + "),
});

/** Each image source's build time, size and compressed size, and the build minutes the plan counts. */
const imageValues = (): Record<string, Value> =>
  Object.assign(
    {},
    ...Object.entries(IMAGE_COSTS).map(([source, c]) => ({
      [`image.${source}.build`]: () => minutesText(c.buildMinutes),
      [`image.${source}.build-planned`]: () => `${planned(c.buildMinutes)} min`,
      [`image.${source}.size`]: () => sizeText(c.sizeGB),
      ...("compressedGB" in c ? { [`image.${source}.compressed`]: () => `${c.compressedGB} GB` } : {}),
    })),
    { "image.largest": () => `${LARGEST_IMAGE_GB} GB` },
  );

/** Every value a doc may state, by name. */
export const VALUES: Readonly<Record<string, Value>> = {
  kubernetes: () => kubernetes.defaultVersion,
  kubectl: () =>
    `${minorPlus(kubernetes.defaultVersion, -CLIENT_TOOLS.kubectl.skewMinors)} to ${minorPlus(kubernetes.defaultVersion, CLIENT_TOOLS.kubectl.skewMinors)}`,
  "aws-cli": () => `${CLIENT_TOOLS.awsCli.v2} or later (version 1: ${CLIENT_TOOLS.awsCli.v1} or later)`,
  ...Object.assign({}, ...STACKS.map(stackValues)),
  ...sharedLayoutValues(),
  ...layout70bValues(),
  ...imageValues(),
};
