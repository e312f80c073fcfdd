/**
 * Rendering a stack through the `render` CLI for the policy tests, with a hook that edits the captured
 * plan before the policies run; the plan of each stack rendered once per process (`stackPlan`) for specs that
 * run the policies over edited copies of it in memory (`policiesOver`); and accessors for the plan's resources.
 * Shared by tests/policy/rendered.spec.ts (field failures) and rendered-hardening.spec.ts.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PlanResource } from "../../policy/plan-args";
import { PolicyPackConfigJson } from "../../policy/policies";
import { PolicyRun, runPolicies } from "../../policy/run";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import type { DynamoGraphDeployment } from "../../components/inference/dgd";
import { T } from "./policy-fixtures";

/** What one render produced: the CLI's exit code, the (edited) plan and the policy run over it. */
export interface Rendered {
  readonly code: number;
  readonly plan: PlanResource[];
  readonly run: PolicyRun;
}

/**
 * The field failures F1-F14 happened on the seed's system (the v1alpha1 graph, the image built in the stack), and the
 * one-edit fixtures edit those objects: `stackPlan` and `policiesOver` render the stack at release seed.
 */
export const FIELD_RELEASE: readonly string[] = ["release=seed"];

/** Each stack's unedited plan, rendered once per process (`stackPlan`), keyed by stack and `--set`s. */
const plans = new Map<string, Promise<PlanResource[]>>();

/** A fresh output folder for one spec file's renders (remove it in `after`). */
export function renderOutDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "dynamo-efa-policy-"));
}

/** Renders `stack` into `out` through the CLI; `mutate` edits the captured plan before the policies see it. */
export async function render(
  stack: string,
  out: string,
  mutate?: PlanEdit,
  config?: PolicyPackConfigJson,
  sets: readonly string[] = [],
): Promise<Rendered> {
  let plan: PlanResource[] = [];
  let run: PolicyRun | undefined;
  const code = await runCli([stack, "--out", out, ...sets.flatMap((s) => ["--set", s])], {
    ...defaultDeps(),
    stdout: () => undefined,
    stderr: () => undefined,
    policies: async (captured) => {
      plan = JSON.parse(JSON.stringify(captured));
      plan = (mutate ? mutate(plan) : undefined) ?? plan;
      run = await runPolicies(plan, config);
      return run;
    },
  });
  if (!run) throw new Error(`render ${stack} exited ${code} before running the policies`);
  const key = [stack, ...sets].join(" ");
  if (!mutate && !config && !plans.has(key)) plans.set(key, Promise.resolve(structuredClone(plan)));
  return { code, plan, run };
}

/** A plan as the policies get it, edited by a test; returning a list replaces the plan. */
export type PlanEdit = (plan: PlanResource[]) => PlanResource[] | void;

/**
 * The captured plan of `stack`, rendered once per process through the CLI (every policy passing is checked by the
 * caller); each call gets its own deep copy to edit.
 */
export async function stackPlan(stack: string, sets: readonly string[] = FIELD_RELEASE): Promise<PlanResource[]> {
  const key = [stack, ...sets].join(" ");
  if (!plans.has(key)) {
    const out = renderOutDir();
    plans.set(
      key,
      render(stack, out, undefined, undefined, sets).then((r) => {
        fs.rmSync(out, { recursive: true, force: true });
        return r.plan;
      }),
    );
  }
  return structuredClone(await plans.get(key)!);
}

/** The policies over `stack`'s plan after `edit`, in memory: what `render` would report for that plan. */
export async function policiesOver(stack: string, edit?: PlanEdit, config?: PolicyPackConfigJson): Promise<PolicyRun> {
  const plan = await stackPlan(stack);
  return runPolicies((edit ? edit(plan) : undefined) ?? plan, config);
}

/** `T` with `readonly` removed at every depth: a rendered object a test edits in place. */
type Writable<T> = T extends readonly (infer E)[]
  ? Writable<E>[]
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;

/** The rendered graph, as the renderer's typed model, editable. */
export type RenderedGraph = Writable<DynamoGraphDeployment>;

/** The one resource of `type` (matching `pick`) in a plan; a test error otherwise. */
export const one = (plan: PlanResource[], type: string, pick: (r: PlanResource) => boolean = () => true) => {
  const hits = plan.filter((r) => r.type === type && pick(r));
  if (hits.length !== 1) throw new Error(`expected one ${type}, found ${hits.map((r) => r.name).join(", ") || "none"}`);
  return hits[0];
};
/** The rendered graph's props. */
export const graph = (plan: PlanResource[]) => one(plan, T.Dgd).props as RenderedGraph;
/** One rendered service (a test error when the graph has none of that key). */
export const svc = (plan: PlanResource[], key: string) => {
  const s = graph(plan).spec.services[key];
  if (!s) throw new Error(`the rendered graph has no service ${key}`);
  return s;
};
/** A rendered service's main container. */
export const main = (plan: PlanResource[], key: string) => {
  const c = svc(plan, key).extraPodSpec?.mainContainer;
  if (!c) throw new Error(`service ${key} has no main container`);
  return c;
};
/** The rendered image's props (docker-build Image inputs: build args are strings). */
export const image = (plan: PlanResource[]) =>
  one(plan, T.Image).props as { buildArgs: Record<string, string>; [k: string]: unknown };
