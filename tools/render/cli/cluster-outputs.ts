/**
 * A model stack's cluster stack, offline: the outputs the render's mocks answer its StackReference with, read from
 * the file the stack names (`dynamo-efa:clusterOutputs`, relative to the repository root): the cluster stack's
 * outputs as `npm run render -- <cluster stack>` writes them (`outputs.json`) and as `pulumi stack output --json`
 * prints a deployed one, a secret reading "[secret]". The program checks the content as it checks the live stack's
 * (program/handoff.ts); here only that the file exists and holds a JSON object.
 */
import * as fs from "fs";
import * as path from "path";
import type { Problem } from "../../../components/_shared/problems";
import type { ModelStackConfig } from "../../../program/kinds";

/** The cluster stack's outputs by its StackReference name, or the problems of the file that should hold them. */
export function recordedClusterOutputs(
  c: Pick<ModelStackConfig, "clusterStack" | "clusterOutputs">,
  root: string,
): { outputs?: Record<string, Record<string, unknown>>; problems: Problem[] } {
  const how = `the cluster stack's outputs: \`npm run render -- ${c.clusterStack}\` writes them to out/${c.clusterStack}/outputs.json, and \`pulumi stack output --json -s ${c.clusterStack}\` prints a deployed stack's`;
  if (c.clusterOutputs === undefined)
    return {
      problems: [
        {
          propertyPath: "clusterOutputs",
          reason: `required for the offline render of a model stack: a JSON file of ${how}; pulumi up reads the live stack instead`,
        },
      ],
    };
  const file = path.resolve(root, c.clusterOutputs);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return {
      problems: [
        { propertyPath: "clusterOutputs", reason: `cannot read ${c.clusterOutputs} (${why}); it holds ${how}` },
      ],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return {
      problems: [
        {
          propertyPath: "clusterOutputs",
          reason: `${c.clusterOutputs} is not JSON (${(e as Error).message}); it holds ${how}`,
        },
      ],
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      problems: [{ propertyPath: "clusterOutputs", reason: `${c.clusterOutputs} must hold a JSON object of ${how}` }],
    };
  return { outputs: { [c.clusterStack]: value as Record<string, unknown> }, problems: [] };
}
