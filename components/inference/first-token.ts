/**
 * The first-token check: a Kubernetes Job `pulumi up` waits for after the graph turned Ready, proving a token comes
 * back (the graph's Ready is its pods' probes, and the Frontend's /health is 200 even when it could not load a
 * worker's model card). Its script (`./first-token/check.py`) lists the models, then asks for a completion and a
 * streamed completion, each within a budget; on failure it exits with a code per cause and writes the step and the
 * likely cause to its termination message, which `pulumi up` prints with the Job's error. Pure.
 *
 * Facts (tests/contracts/facts/pulumi-kubernetes-job-await.json): Pulumi's Job awaiter registers success when the
 * Job's `Complete` condition is True and fails at once on `Failed`, waiting at most 10 minutes unless
 * `customTimeouts` says otherwise; the error it prints carries each failed container's terminated message; a Job
 * left unready by an earlier update is replaced on the next one with `pulumi.com/replaceUnready: "true"`.
 *
 * When it runs again: its name and pod template carry a hash of what it checks (the rendered graph, the script, the
 * budget), and a Job's pod template is immutable, so a changed graph replaces the Job, and an unrelated `pulumi up`
 * leaves the completed one (its log is the record of the first answer). Where it runs: the graph's namespace, as
 * nobody (uid 65534), read-only root, no capabilities, no service account token, no secret; a flow of the release
 * admits it to the Frontend's port and DNS only (components/releases/flows.ts).
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { Annotation } from "../_shared/annotations";
import { frontendServiceUrl } from "../_shared/names";
import { packageFile } from "../_shared/package-file";
import type { ResolvedInference } from "./args";
import { RUNTIME_DEFAULT } from "./pod-security";

/** The script's file name and where it is mounted. */
export const FIRST_TOKEN_FILE = "check.py";
export const FIRST_TOKEN_DIR = "/opt/dynamo-efa/first-token";
/** The script's path in this package (tests run it with python3). */
export const FIRST_TOKEN_SCRIPT_PATH = packageFile(
  __dirname,
  path.join("first-token", FIRST_TOKEN_FILE),
  `inference/first-token/${FIRST_TOKEN_FILE}`,
);
/** The script itself (what the ConfigMap carries). */
export const FIRST_TOKEN_SCRIPT: string = fs.readFileSync(FIRST_TOKEN_SCRIPT_PATH, "utf8");

/** The script's exit codes by cause (the same numbers as its own constants; a test holds them equal). */
export const FIRST_TOKEN_EXIT = {
  badConfig: 2,
  unreachable: 10,
  noModel: 11,
  otherModel: 12,
  noAnswer: 13,
  stalled: 14,
} as const;

/**
 * The check's budget, in seconds, by step; the project's choices, each with why. The graph's own load is already
 * awaited by the graph (its load budget); what the check adds is one short prompt on a graph that is Ready.
 */
export const FIRST_TOKEN_BUDGET = {
  /** Schedule the pod on a system node and pull the ~50 MB Python image. */
  podStartSeconds: 180,
  /** The Frontend discovers the Ready workers and loads their model card (a fetch per worker set). */
  modelsSeconds: 300,
  /**
   * One answer, and again the stream's first token: the first request of a fresh graph pays the prefill-decode
   * NIXL handshake and the first KV transfer.
   */
  answerSeconds: 300,
  /** The longest gap between two streamed chunks after the first token. */
  stallSeconds: 30,
  /** Tokens asked for: a few, so the stream has chunks after its first (Dynamo refuses 0). */
  maxTokens: 8,
} as const;

/** One step of the check as the plan lists it. */
export interface FirstTokenStep {
  readonly step: string;
  readonly seconds: number;
}

/** The check's steps and its total: the Job's deadline (`activeDeadlineSeconds`). */
export function firstTokenBudget(): { readonly steps: readonly FirstTokenStep[]; readonly totalSeconds: number } {
  const b = FIRST_TOKEN_BUDGET;
  const steps: FirstTokenStep[] = [
    { step: "the check's pod starts (system node, Python image)", seconds: b.podStartSeconds },
    { step: "GET /v1/models lists the served model", seconds: b.modelsSeconds },
    { step: "POST /v1/completions answers with text from the served model", seconds: b.answerSeconds },
    { step: "the streamed completion's first token", seconds: b.answerSeconds },
    {
      step: `the rest of the stream to [DONE] (${b.maxTokens} tokens, no gap over ${b.stallSeconds} s)`,
      seconds: b.maxTokens * b.stallSeconds,
    },
  ];
  return { steps, totalSeconds: steps.reduce((a, s) => a + s.seconds, 0) };
}

/** Seconds Pulumi waits for the Job (`customTimeouts`): its deadline, plus a minute for the failure to reach it. */
export function firstTokenWaitSeconds(): number {
  return firstTokenBudget().totalSeconds + 60;
}

/** Whether the graph renders the check. */
export function firstTokenCheckEnabled(r: ResolvedInference): boolean {
  return r.firstTokenCheck.enabled;
}

/** The labels of the check's pod (what its NetworkPolicy and the Frontend's ingress select). */
export function firstTokenCheckLabels(r: ResolvedInference): Record<string, string> {
  return { "app.kubernetes.io/name": "dynamo-efa-first-token", "dynamo-efa/first-token-check": r.graphName };
}

/** The ConfigMap holding the script. */
export function firstTokenConfigMapName(r: ResolvedInference): string {
  return `${r.graphName}-first-token`;
}

/** The ConfigMap with the script; undefined when the check is off. */
export function renderFirstTokenConfigMap(r: ResolvedInference) {
  if (!firstTokenCheckEnabled(r)) return undefined;
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: { name: firstTokenConfigMapName(r), namespace: r.namespace },
    data: { [FIRST_TOKEN_FILE]: FIRST_TOKEN_SCRIPT },
  };
}

/** sha256 of what the check checks: the graph as sent, the script, the image and the budget. */
export function firstTokenChecksSha256(r: ResolvedInference, graph: unknown): string {
  return createHash("sha256")
    .update(
      JSON.stringify({ graph, script: FIRST_TOKEN_SCRIPT, image: r.firstTokenCheck.image, budget: FIRST_TOKEN_BUDGET }),
    )
    .digest("hex");
}

/** The Job's name: the graph's (cut to fit), and the hash's first 10 digits; at most 63 characters. */
export function firstTokenJobName(r: ResolvedInference, sha256: string): string {
  const graph = r.graphName.slice(0, 40).replace(/-+$/, "");
  return `${graph}-first-token-${sha256.slice(0, 10)}`;
}

function container(r: ResolvedInference) {
  const b = FIRST_TOKEN_BUDGET;
  return {
    name: "check",
    image: r.firstTokenCheck.image,
    command: ["python3", `${FIRST_TOKEN_DIR}/${FIRST_TOKEN_FILE}`],
    env: [
      { name: "FRONTEND_URL", value: frontendServiceUrl(r.graphName, r.namespace) },
      { name: "SERVED_MODEL", value: r.servedModelName },
      { name: "MODELS_BUDGET_SECONDS", value: String(b.modelsSeconds) },
      { name: "ANSWER_BUDGET_SECONDS", value: String(b.answerSeconds) },
      { name: "STALL_SECONDS", value: String(b.stallSeconds) },
      { name: "MAX_TOKENS", value: String(b.maxTokens) },
      { name: "PYTHONDONTWRITEBYTECODE", value: "1" },
    ],
    resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "128Mi" } },
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: RUNTIME_DEFAULT,
    },
    // The message `pulumi up` prints; the log's tail when the script died before writing it.
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [{ name: "script", mountPath: FIRST_TOKEN_DIR, readOnly: true }],
  };
}

/** The check's Job for a graph as sent (`graph`: what the hash covers); undefined when the check is off. */
export function renderFirstTokenJob(r: ResolvedInference, graph: unknown) {
  if (!firstTokenCheckEnabled(r)) return undefined;
  const sha = firstTokenChecksSha256(r, graph);
  const labels = firstTokenCheckLabels(r);
  const annotations = { [Annotation.FirstTokenChecksSha256]: sha };
  return {
    apiVersion: "batch/v1" as const,
    kind: "Job" as const,
    metadata: {
      name: firstTokenJobName(r, sha),
      namespace: r.namespace,
      labels,
      // A check that failed is run again by the next `pulumi up`, not awaited again as failed.
      annotations: { ...annotations, "pulumi.com/replaceUnready": "true" },
    },
    spec: {
      // One try: the script retries inside its budgets, and a failed pod keeps its message for `pulumi up`.
      backoffLimit: 0,
      activeDeadlineSeconds: firstTokenBudget().totalSeconds,
      template: {
        metadata: { labels, annotations },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: RUNTIME_DEFAULT },
          containers: [container(r)],
          volumes: [{ name: "script", configMap: { name: firstTokenConfigMapName(r), defaultMode: 0o444 } }],
        },
      },
    },
  };
}
