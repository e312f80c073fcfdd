/**
 * The part of `measure`'s command that needs the cluster client: read the stack, load the kubeconfig, run with
 * cleanup on SIGINT/SIGTERM. Split from `cli.ts` so its usage errors never wait for `@kubernetes/client-node`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../_shared/input";
import { loadProject, stackFilePath } from "../_shared/stackfile";
import { stackInference } from "../verify/target";
import { loadKubeConfig } from "../verify/k8s";
import type { Io, parse } from "./args";
import { Cleanup } from "./cluster";
import { measure } from "./run";
import type { MeasureReport } from "./summary";

type Args = Exclude<ReturnType<typeof parse>, { help: true }>;

/** Runs the measurement; "interrupted" when a signal stopped it (after everything it created was deleted). */
export async function runMeasure(a: Args, io: Io): Promise<MeasureReport | "interrupted"> {
  const file = stackFilePath(io.root, loadProject(io.root), a.stack);
  if (!fs.existsSync(file))
    throw new UsageError(
      `no stack file ${path.relative(io.root, file)}: measure reads the stack's workload and estimate from it`,
    );
  const { resolved } = stackInference(io.root, file);
  const kc = await loadKubeConfig(a.kubeconfig === undefined ? undefined : path.resolve(io.cwd, a.kubeconfig));
  const cleanup = new Cleanup();
  let interrupted: (() => void) | undefined;
  const stopped = new Promise<"interrupted">((resolve) => (interrupted = () => resolve("interrupted")));
  const onSignal = () => {
    io.stderr("measure: interrupted; deleting what this run created\n");
    void cleanup.runAll(io.stderr).then(() => interrupted?.());
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const run = measure({
      stack: a.stack,
      resolved,
      kc,
      ...(a.image ? { image: a.image } : {}),
      factors: a.factors,
      ...(a.requests ? { requests: a.requests } : {}),
      deadlineSeconds: a.deadlineSeconds,
      twin: a.twin,
      pauseDisagg: a.pauseDisagg,
      log: io.stderr,
      cleanup,
    });
    return await Promise.race([run, stopped]);
  } finally {
    await cleanup.runAll(io.stderr);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
