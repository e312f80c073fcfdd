/**
 * Loads an upstream contract fact file (tests/contracts/facts/<name>.json, serving/facts/ for the facts the serving
 * estimate reads at run time, or serving/published/ for the published measurements it is validated against) and checks its provenance block, so
 * a fact without a source cannot be added. See tests/contracts/README.md.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Provenance {
  readonly repository: string;
  readonly ref: string;
  readonly commit: string;
  readonly paths: readonly string[];
  readonly extracted: string;
  readonly extractor: string;
  readonly notes?: string;
}

export interface FactFile<T> {
  readonly provenance: Provenance;
  readonly facts: T;
}

/**
 * Where fact files live: here, and in the serving wing, which reads its facts at run time (serving/facts/: engine
 * settings, GPU measurements) and validates against published measurements (serving/published/), so they live
 * beside it, never under tests/.
 */
const SERVING = join(__dirname, "..", "..", "serving");
export const FACT_DIRS = [join(__dirname, "facts"), join(SERVING, "facts"), join(SERVING, "published")];

/** Problems with a provenance block; empty when it is complete. */
export function provenanceProblems(p: Partial<Provenance> | undefined): string[] {
  if (!p) return ["no provenance block"];
  const out: string[] = [];
  for (const key of ["repository", "ref", "commit", "extracted", "extractor"] as const) {
    if (typeof p[key] !== "string" || p[key]!.trim() === "") out.push(`provenance.${key} is missing`);
  }
  if (!Array.isArray(p.paths) || p.paths.length === 0) out.push("provenance.paths is missing");
  if (typeof p.extracted === "string" && !/^\d{4}-\d{2}-\d{2}$/.test(p.extracted))
    out.push(`provenance.extracted ${JSON.stringify(p.extracted)} is not YYYY-MM-DD`);
  return out;
}

/** Reads facts/<name>.json; throws naming the file when its provenance is incomplete. */
export function loadFacts<T>(name: string): FactFile<T> {
  const file =
    FACT_DIRS.map((d) => join(d, `${name}.json`)).find((f) => existsSync(f)) ?? join(FACT_DIRS[0], `${name}.json`);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as FactFile<T>;
  const problems = provenanceProblems(parsed.provenance);
  if (problems.length > 0) throw new Error(`${file}: ${problems.join("; ")}`);
  return parsed;
}
