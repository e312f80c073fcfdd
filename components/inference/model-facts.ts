/**
 * The model a config names, as fit facts. Its own module, importing only the catalog, so the argument resolution
 * (`args.ts`, which derives the default budgets from the weights) can use it without importing the fit. Pure.
 */
import { factsOfRow, factsOfShape, ModelFacts, ModelShape } from "../catalog/model-math";
import { modelRow } from "../catalog/models";

/** The catalog row, else the stated shape, else unknown. */
export function modelFacts(id: string, shape?: ModelShape): ModelFacts | undefined {
  const row = modelRow(id);
  if (row) return factsOfRow(row);
  return shape ? factsOfShape(id, shape) : undefined;
}
