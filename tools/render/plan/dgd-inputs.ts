/**
 * Reading a captured DynamoGraphDeployment's services through the DGD type model
 * (components/inference/dgd.ts), every field treated as possibly absent: the plan's workers and the GPU
 * idle section read the graph's pods this way, so neither restates its shape. The render reads no annotation of
 * the graph: what the program computed comes with its run (`RenderFacts.inference`). Pure.
 */
import type { DgdService, DgdSpec } from "../../../components/inference/dgd";
import { graphModel } from "../../../components/inference/dgd-v1beta1";

/** A captured resource's inputs (Pulumi's property bag). */
export interface CapturedInputs {
  readonly inputs?: Record<string, unknown>;
}

/** The graph's spec (empty when it has none). */
export function specOf(dgd: CapturedInputs): Partial<DgdSpec> {
  return (graphModel(dgd.inputs ?? {}).spec as Partial<DgdSpec> | undefined) ?? {};
}

/** The graph's services by key (none when its spec has none). */
export function servicesOf(dgd: CapturedInputs): [string, Partial<DgdService>][] {
  return Object.entries(specOf(dgd).services ?? {});
}
