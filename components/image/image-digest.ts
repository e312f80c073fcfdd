/**
 * `ImageDigest`: a vendor image's tag resolved to its manifest digest once, at `pulumi up`, and kept in the stack's
 * state, like `ModelCommit` keeps a model's commit: a later `pulumi up` deploys the same digest until the release or
 * the tag changes, so a tag the vendor pushes again never rolls the workers on an unrelated update. To take what the
 * tag names now: `pulumi up --replace <this resource's URN>`. A Pulumi dynamic resource: its provider is serialized
 * into the state and runs in the Pulumi CLI's Node.js provider host, so it captures only `resolveImageDigest` (global
 * `fetch`, node:crypto).
 */
import * as pulumi from "@pulumi/pulumi";
import { resolveImageDigest } from "./registry-digest";

/**
 * The digest the offline render shows for a tag it cannot resolve (no registry offline): all zeros, recognisably not
 * an image; the plan says so (tools/render/plan).
 */
export const PLACEHOLDER_DIGEST = `sha256:${"0".repeat(64)}`;

/** Inputs of `ImageDigest` (ECR's credentials are a secret input: the state keeps them encrypted). */
export interface ImageDigestInputs {
  readonly repository: string;
  readonly tag: string;
  /** `https://<host>` unless a test serves the registry elsewhere. */
  readonly endpoint?: string;
  /** `user:password` for an ECR repository (the account's token); none for a public registry. */
  readonly basicAuth?: string;
}

/** The keys whose change resolves the digest again (the credentials' do not: a token rotates every 12 hours). */
const RESOLVE_AGAIN = ["repository", "tag", "endpoint"] as const;

/** The dynamic provider: resolve once on create, keep the digest (no update, no refresh from the registry). */
export const imageDigestProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: ImageDigestInputs) {
    const digest = await resolveImageDigest(inputs);
    const { repository, tag } = inputs;
    return { id: `${repository}@${digest}`, outs: { repository, tag, digest, ref: `${repository}@${digest}` } };
  },
  async diff(_id: string, olds: ImageDigestInputs, news: ImageDigestInputs) {
    const replaces = RESOLVE_AGAIN.filter((k) => olds[k] !== news[k]);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },
};

/** A vendor image's tag resolved to a digest at `pulumi up`, kept in the stack's state. */
export class ImageDigest extends pulumi.dynamic.Resource {
  /** `sha256:<64 hex>`. */
  declare public readonly digest: pulumi.Output<string>;
  /** `repository@sha256:<64 hex>`: what deploys. */
  declare public readonly ref: pulumi.Output<string>;

  constructor(
    name: string,
    args: { [K in keyof ImageDigestInputs]: pulumi.Input<ImageDigestInputs[K]> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(imageDigestProvider, name, { ...args, digest: undefined, ref: undefined }, opts, "image", "ImageDigest");
  }
}
