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
import { RUN_LABEL } from "./job";
import { measure } from "./run";
import type { MeasureReport } from "./summary";

type Args = Exclude<ReturnType<typeof parse>, { help: true }>;

/**
 * What each Ctrl-C (or SIGTERM) does: the first deletes what the run created and restores what it scaled down, and
 * waits for the graph to turn Ready again; the second stops that waiting but still finishes every undo action (a
 * graph paused by --pause-disagg gets its replicas back); the third leaves at once, naming what is left undone.
 * The handlers stay installed for the whole run, so no Ctrl-C ever kills the process mid-cleanup.
 */
export function interruptions(
  cleanup: Cleanup,
  io: Pick<Io, "stderr">,
  done: () => void,
  exit: (code: number) => void = (code) => process.exit(code),
) {
  let count = 0;
  return (): void => {
    count += 1;
    if (count === 1) {
      cleanup.close();
      io.stderr("measure: interrupted; deleting what this run created (Ctrl-C again: stop waiting for Ready)\n");
      void cleanup.runAll(io.stderr).then(done);
    } else if (count === 2) {
      cleanup.hurry();
      io.stderr(
        `measure: no longer waiting; still undoing: ${cleanup.pending().join(", ") || "nothing"} (Ctrl-C again: leave now and undo nothing more)\n`,
      );
    } else {
      const left = cleanup.pending();
      io.stderr(
        `measure: leaving now; not undone: ${left.join(", ") || "nothing"}${left.length ? ` (delete or restore by hand; objects carry the label ${RUN_LABEL})` : ""}\n`,
      );
      exit(130);
    }
  };
}

/** Runs the measurement; "interrupted" when a signal stopped it (after everything it created was deleted). */
export async function runMeasure(a: Args, io: Io): Promise<MeasureReport | "interrupted"> {
  const file = stackFilePath(io.root, loadProject(io.root), a.stack);
  if (!fs.existsSync(file))
    throw new UsageError(
      `no stack file ${path.relative(io.root, file)}: measure reads the stack's workload and estimate from it`,
    );
  const outputs = a.clusterOutputs === undefined ? undefined : path.resolve(io.cwd, a.clusterOutputs);
  const { resolved } = stackInference(io.root, file, outputs);
  const kc = await loadKubeConfig(a.kubeconfig === undefined ? undefined : path.resolve(io.cwd, a.kubeconfig));
  const cleanup = new Cleanup();
  let interrupted: (() => void) | undefined;
  const stopped = new Promise<"interrupted">((resolve) => (interrupted = () => resolve("interrupted")));
  const onSignal = interruptions(cleanup, io, () => interrupted?.());
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
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
