/**
 * One commit per deployment: a moving revision (`modelRevision: main`, a branch or a tag) is resolved to the 40-hex
 * commit it names once, at `pulumi up`, by the `ModelCommit` resource, and every pod of the graph (the prefetch
 * DaemonSet, each worker's init container and engine) gets that commit. Without this, two nodes that download at
 * different times get different weights under the same `.../main` directory, and prefill and decode (on different
 * nodes by default) silently serve two versions of a model.
 *
 * Why at `pulumi up`, in the program: the commit must be one value in every pod spec, and the pod specs are rendered
 * by the program; a node-side resolution would need shared state between nodes (the `local-nvme` cache is per node).
 * Why a resource: its state keeps the commit, so a later `pulumi up` does not move the weights because the model's
 * owner pushed; changing `model` or `modelRevision` (or `pulumi up --replace` of the resource) resolves again. The
 * offline render cannot reach the hub: the plan says the commit is resolved at deploy (`revisionPlan`), and the
 * render's mocks answer a placeholder commit (tools/render/capture/mocks.ts).
 *
 * The request is the one the prefetch makes, `GET {endpoint}/api/models/{model}/revision/{revision}` answering
 * `{ sha }` (tests/contracts/facts/hf-hub-api.json), with the same token rule: the token goes only to the endpoint's
 * scheme, host and port, and an https endpoint's redirect to http is refused (./hf-commit.ts). Pure; the resource is
 * ./model-commit.ts.
 */
import { Backend, ResolvedInference } from "./args";
import { ModelCacheMode } from "./model-load";
import { COMMIT_RULE } from "./hf-commit";

/** The commit the offline render's mocks answer for a moving revision: never a real commit. */
export const PLACEHOLDER_COMMIT = "0".repeat(40);

/** How the graph's revision becomes one commit. */
export const RevisionResolution = {
  /** `modelRevision` is a 40-hex commit: nothing to resolve. */
  Pinned: "pinned",
  /** A moving revision, resolved once to a commit at `pulumi up` (the `ModelCommit` resource) and kept in its state. */
  AtDeploy: "resolved at deploy",
  /** A moving revision that cannot reach the engine (TensorRT-LLM downloading the model itself): each worker downloads what it names when it starts. */
  Unpinned: "not pinned",
} as const;
export type RevisionResolution = (typeof RevisionResolution)[keyof typeof RevisionResolution];

/** The plan's statement of the revision. */
export interface RevisionPlan {
  readonly requested: string;
  readonly resolution: RevisionResolution;
  /** The commit every worker serves, when the stack pins it. */
  readonly commit?: string;
  readonly note: string;
}

type RevisionFacts = Pick<ResolvedInference, "modelRevision" | "modelCacheMode" | "backend">;

/** True when the revision reaches every worker: the node cache's prefetch, or vLLM's `--revision`. */
export function revisionReachesEngine(r: Pick<ResolvedInference, "modelCacheMode" | "backend">): boolean {
  return r.modelCacheMode === ModelCacheMode.LocalNvme || r.backend === Backend.Vllm;
}

/** How this graph's revision is made one commit, for the plan. */
export function revisionPlan(r: RevisionFacts): RevisionPlan {
  const requested = r.modelRevision;
  if (COMMIT_RULE.test(requested))
    return {
      requested,
      resolution: RevisionResolution.Pinned,
      commit: requested,
      note: "every worker serves this commit",
    };
  if (revisionReachesEngine(r))
    return {
      requested,
      resolution: RevisionResolution.AtDeploy,
      note: `"${requested}" moves: \`pulumi up\` resolves it once to a commit (resource ModelCommit, kept in the stack's state) and every worker serves that commit; a later up keeps it until model or modelRevision changes. The render cannot reach the hub: its manifests show the placeholder commit ${PLACEHOLDER_COMMIT}. Pin a 40-hex commit to choose it yourself`,
    };
  return {
    requested,
    resolution: RevisionResolution.Unpinned,
    note: `"${requested}" moves and TensorRT-LLM downloading the model itself takes no revision: each worker downloads what "${requested}" names when it starts, so workers started on different days can serve different weights. Use modelCacheMode "local-nvme" to serve one commit`,
  };
}

/** The graph's facts with the resolved commit as its revision (what every pod spec is rendered from). */
export function withCommit<T extends ResolvedInference>(r: T, commit: string): T {
  return revisionReachesEngine(r) ? { ...r, modelRevision: commit } : r;
}
