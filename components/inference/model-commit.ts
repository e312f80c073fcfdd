/**
 * `ModelCommit`: a moving revision of a model resolved to a commit once, at `pulumi up`, and kept in the stack's
 * state (why, and what the plan says: ./revision.ts). A Pulumi dynamic resource: its provider is serialized into the
 * state and runs in the Pulumi CLI's Node.js provider host, so it captures only `resolveCommit` (global `fetch`).
 */
import * as pulumi from "@pulumi/pulumi";
import { ResolvedInference } from "./args";
import { HF_ENDPOINT, resolveCommit } from "./hf-commit";
import { revisionPlan, RevisionResolution } from "./revision";

/** Inputs of `ModelCommit` (the token is a secret input: the state keeps it encrypted). */
export interface ModelCommitInputs {
  readonly endpoint: string;
  readonly model: string;
  readonly revision: string;
  readonly token?: string;
}

/** The keys whose change resolves the commit again (the token's does not: the same revision names the same commit). */
const RESOLVE_AGAIN = ["endpoint", "model", "revision"] as const;

/** The dynamic provider: resolve once on create, keep the commit (no update, no refresh from the hub). */
export const modelCommitProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: ModelCommitInputs) {
    const commit = await resolveCommit(inputs);
    const { endpoint, model, revision } = inputs;
    return { id: `${model}@${commit}`, outs: { endpoint, model, revision, commit } };
  },
  async diff(_id: string, olds: ModelCommitInputs, news: ModelCommitInputs) {
    const replaces = RESOLVE_AGAIN.filter((k) => olds[k] !== news[k]);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },
};

/** A moving revision of a model resolved to a commit at `pulumi up`, kept in the stack's state. */
export class ModelCommit extends pulumi.dynamic.Resource {
  /** The 40-hex commit. */
  declare public readonly commit: pulumi.Output<string>;

  constructor(
    name: string,
    args: { [K in keyof ModelCommitInputs]: pulumi.Input<ModelCommitInputs[K]> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(modelCommitProvider, name, { ...args, commit: undefined }, opts, "inference", "ModelCommit");
  }
}

/**
 * The commit every pod of the graph gets: the revision itself when it is a commit or cannot reach the engine;
 * else the `ModelCommit` resource's (with `hfToken` when the component is given one: a private model needs it).
 */
export function graphCommit(
  name: string,
  r: ResolvedInference,
  token: pulumi.Input<string> | undefined,
  opts: pulumi.CustomResourceOptions,
): pulumi.Output<string> {
  if (revisionPlan(r).resolution !== RevisionResolution.AtDeploy) return pulumi.output(r.modelRevision);
  const args = { endpoint: HF_ENDPOINT, model: r.model, revision: r.modelRevision };
  return new ModelCommit(
    `${name}-model-commit`,
    token === undefined ? args : { ...args, token: pulumi.secret(token) },
    {
      ...opts,
      additionalSecretOutputs: ["token"],
    },
  ).commit;
}
