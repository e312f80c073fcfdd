/**
 * What the graph's services state rather than leave to Dynamo's defaults: the release's runtime settings on every
 * worker and on the Frontend (components/releases, each with why and where it was read), the Frontend surfaces
 * left off unless asked, and the workers' probes. Pure.
 */
import { DynamoPortName } from "../_shared/names";
import { release, RuntimeSetting } from "../releases";
import { ResolvedInference } from "./args";
import { DgdService, EnvVar } from "./dgd";

/** A release's stated settings as env vars (components/releases: each with why and where it was read). */
function settingsEnv(settings: readonly RuntimeSetting[]): EnvVar[] {
  return settings.map(({ name, value }) => ({ name, value }));
}

/** The release's settings every worker states. */
export function workerSettings(r: ResolvedInference): EnvVar[] {
  return settingsEnv(release(r.release).runtime.workerEnv);
}

/**
 * The Frontend's stated settings: the planes and discovery it shares with the workers, and each surface the release
 * turns on by default (the admin API, nvext and its worker-pinning headers) off unless `frontend` asks for it.
 */
export function frontendSettings(r: ResolvedInference): EnvVar[] {
  const rt = release(r.release).runtime;
  const off = [
    ...(r.frontend.adminApi ? [] : [rt.frontendSwitches.adminApiOff]),
    ...(r.frontend.nvext ? [] : [rt.frontendSwitches.nvextOff]),
  ].filter((x) => x !== undefined);
  return settingsEnv([...rt.frontendEnv, ...off]);
}

/**
 * A worker's readiness and liveness probes on its system port, each replacing the operator's. Liveness is stated,
 * not the operator's: its default threshold was 1 before runtime 1.5.0 and 3 after (Dynamo v1.5.0 #13512), and one
 * slow answer under load must not restart a worker that took minutes to load. Fresh objects per service: one object
 * shared by two services would be written as a YAML anchor and alias.
 */
export function workerProbes(): Pick<DgdService, "readinessProbe" | "livenessProbe"> {
  return {
    readinessProbe: {
      httpGet: { path: "/health", port: DynamoPortName.WorkerSystem },
      periodSeconds: 10,
      timeoutSeconds: 4,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: { path: "/live", port: DynamoPortName.WorkerSystem },
      periodSeconds: 10,
      timeoutSeconds: 4,
      failureThreshold: 3,
    },
  };
}
