/**
 * The registry of supported releases the stack key `release` selects from. Pure.
 */
import { Problem, show } from "../_shared/problems";
import { checkChoice } from "../_shared/suggest";
import { dynamo16 } from "./dynamo-1-6";
import { seed } from "./seed";
import { Release, ReleaseId } from "./types";

/** Every supported release by id. */
export const RELEASES: Readonly<Record<ReleaseId, Release>> = {
  [ReleaseId.Dynamo16]: dynamo16,
  [ReleaseId.Seed]: seed,
};

/** The release a stack gets without `release`. */
export const DEFAULT_RELEASE: ReleaseId = ReleaseId.Dynamo16;

/** Whether a string names a supported release. */
export function isReleaseId(v: unknown): v is ReleaseId {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(RELEASES, v);
}

/** Problems with an optional `release` value at `path` (undefined = the default); empty when it is supported. */
export function releaseProblems(v: unknown, path = "release"): Problem[] {
  return checkChoice(path, v, Object.keys(RELEASES));
}

/** The release `id` names (the default when undefined); throws on an unknown id (validate first). */
export function release(id: ReleaseId = DEFAULT_RELEASE): Release {
  if (!isReleaseId(id)) throw new Error(`unknown release ${show(id)}`);
  return RELEASES[id];
}
