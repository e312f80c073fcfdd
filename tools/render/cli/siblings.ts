/**
 * What the offline render can check of the names model stacks claim on one cluster (`pulumi up` holds them with the
 * claims, program/claims.ts): the other stack files of this project that name the same cluster stack must take other
 * names. A stack file that does not check is its own render's problem and is skipped here.
 */
import { Problem } from "../../../components/_shared/problems";
import { modelNames, ModelStackConfig } from "../../../program/kinds";
import { checkAnyStackConfigMap } from "../../_shared/stack-check";
import { Project, stackConfig, stackFilePath, stackNames } from "../../_shared/stackfile";

/** The key each claimed name is set at. */
const AT: Readonly<Record<string, string>> = {
  graph: "graphName",
  pool: "graphName",
  namespace: "inference.namespace",
};

/** Problems for each name `c` (stack `stack`) shares with another model stack of the project on the same cluster. */
export function siblingClaimProblems(root: string, project: Project, stack: string, c: ModelStackConfig): Problem[] {
  const mine = modelNames(c);
  const out = new Map<string, Problem>();
  for (const other of stackNames(root, project).filter((s) => s !== stack)) {
    let theirs: ReturnType<typeof modelNames> | undefined;
    try {
      const o = checkAnyStackConfigMap(
        project.name,
        stackConfig(project, stackFilePath(root, project, other)),
        other,
      ).config;
      if (o?.kind === "model" && o.clusterStack === c.clusterStack) theirs = modelNames(o);
    } catch {
      continue; // an unreadable stack file is its own render's problem
    }
    if (!theirs) continue;
    const pairs = [
      ["graph", mine.graphName, theirs.graphName],
      ["pool", mine.poolName, theirs.poolName],
      ["namespace", mine.namespace, theirs.namespace],
    ] as const;
    for (const [kind, a] of pairs.filter(([, x, y]) => x === y)) {
      const at = kind === "namespace" && c.inference.namespace === undefined ? "graphName" : AT[kind];
      out.set(`${at}/${kind}`, {
        propertyPath: at,
        reason: `the ${kind} name ${JSON.stringify(a)} is also stack ${other}'s on the cluster stack ${c.clusterStack}: two model stacks cannot share a ${kind} on one cluster (pulumi up of the second stops at its claim). Give this stack its own`,
      });
    }
  }
  return [...out.values()];
}
