/**
 * Moving a stack between releases. The Dynamo operator supports upgrades one minor at a time ("Upgrade from N.M to
 * N.(M+1) … Apply every intermediate minor release in order": docs.nvidia.com/dynamo/v1.6.2/reference/releases/
 * deprecations, upgrade selector), so a jump from the seed's operator 1.0.1 straight to 1.6.2 is refused with the
 * path. The path is data: the newest patch of every intermediate minor (ai-dynamo/dynamo@0059bada
 * docs/fern/components/releases.data.ts; 1.5.1 from the v1.6.2 docs' release table). docs/RELEASES.md#upgrading. Pure.
 */
import { Problem, show } from "../_shared/problems";
import { isReleaseId, RELEASES } from "./registry";

/** The `dynamo-platform` chart of each operator minor a stack passes through, newest patch first known. */
export const OPERATOR_PATH: readonly string[] = ["1.0.1", "1.1.1", "1.2.1", "1.3.1", "1.4.2", "1.5.1", "1.6.2"];

const CHART = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/;

/** The chart version a `previousRelease` value names: a release id's chart, or a chart version as given. */
export function operatorVersionOf(v: string): string | undefined {
  if (isReleaseId(v)) return RELEASES[v].platform.chart.version;
  return CHART.test(v) ? v : undefined;
}

/** [major, minor] of a chart version. */
function minorOf(v: string): [number, number] {
  const m = CHART.exec(v)!;
  return [Number(m[1]), Number(m[2])];
}

/** The charts to install in order to go from operator `from` to `to` (excluding `from`, including `to`). */
export function upgradePath(from: string, to: string): string[] {
  const [fa, fb] = minorOf(from);
  const [ta, tb] = minorOf(to);
  if (fa !== ta) return [to];
  const between = OPERATOR_PATH.filter((c) => {
    const [a, b] = minorOf(c);
    return a === fa && b > fb && b < tb;
  });
  return [...between, to];
}

/**
 * Problems with moving the operator from `previous` (a release id or the chart version the cluster runs now) to the
 * chart `target`: unknown value, a downgrade, or more than one minor at once (with the path to follow instead).
 */
export function upgradeProblems(previous: unknown, target: string, path = "previousRelease"): Problem[] {
  if (previous === undefined) return [];
  const from = typeof previous === "string" ? operatorVersionOf(previous) : undefined;
  if (!from)
    return [
      {
        propertyPath: path,
        reason: `must be a release (${Object.keys(RELEASES).join(", ")}) or the dynamo-platform chart version the cluster runs now (such as "1.5.1"); got ${show(previous)}`,
      },
    ];
  if (!CHART.test(target)) return [];
  const [fa, fb] = minorOf(from);
  const [ta, tb] = minorOf(target);
  if (ta < fa || (ta === fa && tb < fb))
    return [
      {
        propertyPath: path,
        reason: `the operator cannot move down from ${from} to ${target} (the CRD's storage version and the operator's state are not downgraded); restore from backup or deploy a new stack`,
      },
    ];
  if (ta === fa && tb - fb <= 1) return [];
  const steps = upgradePath(from, target);
  return [
    {
      propertyPath: path,
      reason:
        `the Dynamo operator upgrades one minor at a time; ${from} -> ${target} skips ${steps.length - 1} minor(s). ` +
        `Keep "release" at the one the stack runs, set platform.version to each of ${steps
          .slice(0, -1)
          .map((s) => show(s))
          .join(", ")} in turn ` +
        `(pulumi up after each, previousRelease set to the version before it), then set release with previousRelease ${show(steps.at(-2) ?? from)} (docs/RELEASES.md#upgrading)`,
    },
  ];
}
