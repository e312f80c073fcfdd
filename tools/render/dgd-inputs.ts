/**
 * Reading a captured DynamoGraphDeployment's inputs through the DGD type model
 * (components/inference/dgd-types.ts), every field treated as possibly absent: the plan, the critical path and
 * the KV-transport line all read the graph this way, so none of them restates its shape. Pure.
 */
import type { DgdMetadata, DgdService, DgdSpec, StringMap } from "../../components/inference/dgd-types";

/** A captured resource's inputs (Pulumi's property bag). */
export interface CapturedInputs {
  readonly inputs?: Record<string, unknown>;
}

/** The graph's metadata annotations (empty when it has none). */
export function annotationsOf(dgd: CapturedInputs): StringMap {
  return (dgd.inputs?.metadata as Partial<DgdMetadata> | undefined)?.annotations ?? {};
}

/** The graph's spec (empty when it has none). */
export function specOf(dgd: CapturedInputs): Partial<DgdSpec> {
  return (dgd.inputs?.spec as Partial<DgdSpec> | undefined) ?? {};
}

/** The graph's services by key (none when its spec has none). */
export function servicesOf(dgd: CapturedInputs): [string, Partial<DgdService>][] {
  return Object.entries(specOf(dgd).services ?? {});
}
