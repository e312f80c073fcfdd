/**
 * One render: run the program under mocks, derive every output file from the capture, run the
 * policies on the in-memory plan. `writeRender` puts the files on disk.
 */
import * as path from "path";
import type { ProgramRun, RenderFacts } from "../../program/run";
import { capture, Capture, CapturedResource } from "./capture/capture";
import { criticalPath, graphCreateMinutes, mermaid } from "./plan/graph";
import { schedulingEdges } from "./plan/build-order";
import { dashboardFiles } from "./output/dashboards";
import { helmFiles, imageJson, manifestFiles, RenderedFile } from "./output/manifests";
import { renderMocks } from "./capture/mocks";
import { writeRenderAtomic } from "./output/output";
import { buildPlan, Plan } from "./plan/plan";
import { planMarkdown } from "./plan/md";
import { topologySvg } from "./pictures/topology";
import { planMdSlots, remoteChildren } from "./plan/md-sections";
import { idleOf } from "./plan/idle-input";
import type { PlanResource } from "../../policy/plan-args";
import type { PolicyPackConfigJson } from "../../policy/policies";
import type { PolicyRun } from "../../policy/run";
import type { StackConfigMap } from "../_shared/stackfile";
import { packageRoot } from "../../components/_shared/package-root";

/** A program the render can run: constructs every resource when called (never at import time). */
export type RenderProgram = () => ProgramRun<RenderFacts> | Promise<ProgramRun<RenderFacts>>;

/** What to render. */
export interface RenderOptions {
  readonly project: string;
  readonly stack: string;
  readonly config: StackConfigMap;
  readonly program: RenderProgram;
  /** Runs the policy pack over the in-memory plan (`policy/run.ts` `runPolicies`). */
  readonly policies: PolicyRunner;
  /** Policy pack config: enforcement level and settings per policy. @default - the pack's defaults */
  readonly policyConfig?: PolicyPackConfigJson;
  /** Outputs of the stacks the program references, by name (a model stack's cluster stack). @default {} */
  readonly stackOutputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Runs policies over a plan, with the pack config (`pulumi preview --policy-pack-config` shape). */
export type PolicyRunner = (plan: readonly PlanResource[], config?: PolicyPackConfigJson) => Promise<PolicyRun>;

/** The captured resources as the policy runner's plan: inputs with secrets in the clear, in memory only. */
export function policyPlan(resources: readonly CapturedResource[]): PlanResource[] {
  return resources.map((r) => ({
    type: r.type,
    name: r.name,
    urn: r.urn,
    props: r.inputs,
    ...(r.parent ? { parent: r.parent } : {}),
    dependencies: r.dependsOn,
    propertyDependencies: r.propertyDependencies,
    opts: { protect: r.protect, retainOnDelete: r.retainOnDelete, secretPaths: r.secretPaths },
  }));
}

/** Everything a render produced. */
export interface RenderResult {
  readonly capture: Capture<RenderFacts>;
  readonly plan: Plan;
  readonly policy: PolicyRun;
  readonly files: readonly RenderedFile[];
}

/**
 * Repository root: local paths under it are written relative, so every checkout renders the same bytes. Found by
 * its files, not by this module's depth: `npm run render` runs a bundle of the render (package.json).
 */
const ROOT = packageRoot(__dirname);

/** `value` with every string path under the repository root made relative to it. */
export function relativizePaths<T>(value: T, root = ROOT): T {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string")
      return v === root ? "." : v.startsWith(prefix) ? v.slice(prefix.length).split(path.sep).join("/") : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

const json = (v: unknown) => `${JSON.stringify(relativizePaths(v), null, 2)}\n`;

/** The on-disk view of one captured resource (secrets redacted). */
function resourceRecord(r: CapturedResource) {
  return {
    type: r.type,
    name: r.name,
    urn: r.urn,
    custom: r.custom,
    ...(r.remote ? { remote: true } : {}),
    parent: r.parent ?? null,
    dependsOn: r.dependsOn,
    explicitDependsOn: r.explicitDependsOn,
    implicitDependsOn: r.implicitDependsOn,
    protect: r.protect,
    retainOnDelete: r.retainOnDelete,
    ...(r.customTimeouts ? { customTimeouts: r.customTimeouts } : {}),
    ...(r.aliases.length > 0 ? { aliases: r.aliases } : {}),
    ...(r.provider ? { provider: r.provider } : {}),
    inputs: r.redactedInputs,
  };
}

/**
 * The plan with its GPU idle section, and the critical path re-weighed by it: the graph's step is what the timeline
 * expects (node join -> Ready), not its budgets, so plan.md and the CLI summary tell one deploy time.
 */
function withGpuIdle(
  built: Plan,
  resources: readonly CapturedResource[],
  facts: RenderFacts,
  waits: ReadonlyMap<string, readonly string[]>,
): Plan {
  // A cluster stack has no GPU node and no graph: nothing idles, and its critical path is its own.
  if (!facts.image) return built;
  const gpuIdle = idleOf(built, resources, facts.gpuPools, facts.image);
  const ready = gpuIdle.timeline.at(-1)?.atSeconds;
  const expected =
    ready !== undefined
      ? criticalPath(resources, waits, ready / 60, graphCreateMinutes(facts.inference))
      : built.criticalPathDetail;
  return {
    ...built,
    criticalPath: expected.steps.map((s) => s.name),
    criticalPathDetail: expected,
    gpuIdleMinutes: gpuIdle.gpuIdleMinutes,
    gpuIdle,
  };
}

/** Runs the program and derives every file. Throws the program's errors (config problems included). */
export async function render(o: RenderOptions): Promise<RenderResult> {
  const c = await capture(o.program, {
    project: o.project,
    stack: o.stack,
    mocks: renderMocks(regionOf(o.config), [], o.stackOutputs),
    config: { ...o.config.config },
    secretKeys: o.config.secretKeys,
  });
  const facts = c.result;
  const ref = typeof c.outputs.imageRef === "string" ? c.outputs.imageRef : undefined;
  // The graph's pods wait for the GPU nodes to join: part of the critical path though not a Pulumi dependency.
  const waits = schedulingEdges(
    c.resources,
    facts.gpuPools.map((p) => p.instanceType),
  );
  const critical = criticalPath(c.resources, waits, undefined, graphCreateMinutes(facts.inference));
  const built = buildPlan({
    stack: o.stack,
    region: facts.region,
    pools: facts.gpuPools,
    resources: c.resources,
    criticalPath: critical,
    ...(facts.inference ? { inference: facts.inference } : {}),
    ...(facts.image
      ? {
          image: {
            cudaArchs: facts.image.cudaArchs,
            cudaToolkit: facts.image.cudaToolkit,
            build: facts.image.build,
            ...(ref ? { ref } : {}),
          },
        }
      : {}),
    ...(facts.sharedCluster ? { sharedCluster: facts.sharedCluster } : {}),
  });
  const plan = withGpuIdle(built, c.resources, facts, waits);
  const policy = await o.policies(policyPlan(c.resources), o.policyConfig);
  const graph = mermaid(c.resources, plan.criticalPathDetail);
  const slots = planMdSlots(plan, { mermaid: graph, policy }, remoteChildren(c.resources));
  const files: RenderedFile[] = [
    { path: "resources.json", content: json(c.resources.map(resourceRecord)) },
    { path: "outputs.json", content: json(c.outputs) },
    ...manifestFiles(c.resources),
    ...helmFiles(c.resources),
    ...dashboardFiles(c.resources),
    { path: "image.json", content: json(imageFile(c.resources, facts, ref)) },
    { path: "plan.json", content: json(plan) },
    { path: "plan.md", content: planMarkdown(plan, slots) },
    { path: "graph.mmd", content: graph },
    { path: "topology.svg", content: topologySvg(plan) },
    { path: "policy.json", content: json(policy) },
  ];
  return { capture: c, plan, policy, files };
}

/** image.json: the graph's image, or why a stack has none (a cluster stack: its model stacks bring theirs). */
function imageFile(resources: readonly CapturedResource[], facts: RenderFacts, ref: string | undefined) {
  if (!facts.image)
    return { image: null, note: "a cluster stack serves no graph and deploys no image; each model stack has its own" };
  return imageJson(resources, {
    cudaArchs: facts.image.cudaArchs,
    cudaToolkit: facts.image.cudaToolkit,
    ...(ref ? { ref } : {}),
    ...(facts.image.plan ? { plan: facts.image.plan } : {}),
  });
}

/** The default provider's region under the mocks: the stack's `aws:region` (Pulumi.yaml sets us-east-2; the program refuses a stack without one, so the fallback only keeps the mocks answering until that error). */
function regionOf(cfg: StackConfigMap): string {
  return cfg.config["aws:region"] ?? "us-east-2";
}

/** The fixed-name files every render writes at the top of its directory (besides `manifests/`, `helm/`, `dashboards/`). */
export const RENDER_FILES = [
  "resources.json",
  "outputs.json",
  "image.json",
  "plan.json",
  "plan.md",
  "graph.mmd",
  "topology.svg",
  "policy.json",
] as const;

/** Entries a render owns inside its directory; only these are replaced by the next render. */
const OWNED = ["manifests", "helm", "dashboards", ...RENDER_FILES, "render-error.log"];

/**
 * Replaces `dir` with the files, atomically (see `./output/output.ts`): a previous render's files are
 * replaced, anything else in `dir` is kept. Call with the directory's lock held (`lockDir`).
 */
export function writeRender(dir: string, files: readonly RenderedFile[]): void {
  writeRenderAtomic(dir, files, OWNED);
}
