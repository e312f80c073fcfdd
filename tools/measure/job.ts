/**
 * The benchmark Job and the NetworkPolicies that let it reach the Frontend, as plain objects. Pure.
 *
 * AIPerf runs inside the cluster, next to the Frontend (a preferred affinity to the Frontend's node), and calls
 * the Frontend's Service, so the numbers carry no port-forward or laptop link. AIPerf's own Kubernetes mode does
 * not run at the pinned commit (tests/contracts/facts/aiperf.json `kubernetesServiceManagerImplemented`), so this
 * is a plain Job: one pod, no retries, bounded by `activeDeadlineSeconds`, collected by `ttlSecondsAfterFinished`
 * should the tool itself die before it deletes the Job. The container prints AIPerf's summary export between two
 * marker lines after AIPerf exits, so the tool reads the export file itself from the pod's log (no volume, no
 * exec, no copy). The tokenizer AIPerf sizes prompts with is fetched by the Job's init container (the prefetch script,
 * METADATA_ONLY, from a ConfigMap of this run) into an emptyDir that AIPerf reads offline; only that init container
 * gets the graph's Hugging Face token, and only when the tokenizer needs it (./tokenizer.ts). The graph's namespace
 * denies all traffic by default (components/inference/network.ts): one policy lets the Job out to the Frontend, DNS
 * and HTTPS on public addresses only (the hub; never the VPC, the node or the metadata service), one lets the
 * Frontend accept it.
 */
import type { V1Affinity, V1ConfigMap, V1Job } from "@kubernetes/client-node";
import { DynamoPort, GraphService, OperatorLabel, graphNames } from "../../components/_shared/names";
import {
  DNS_PORT,
  HTTPS_PORT,
  NAMESPACE_NAME_LABEL,
  type NetworkPolicyObject,
  type PolicyPort,
} from "../../components/inference/network";
import { HOSTNAME_TOPOLOGY_KEY } from "../../components/inference/graph";
import { METADATA_ONLY_ENV } from "../../components/inference/frontend-model";
import { PREFETCH_DIR, PREFETCH_FILE, PREFETCH_SCRIPT } from "../../components/inference/cache";
import { NON_INTERNET_V4 } from "../../components/_shared/cidr";
import { RUNTIME_DEFAULT } from "../../components/inference/pod-security";
import { AIPERF } from "./aiperf";
import { TOKENIZER_ROOT } from "./tokenizer";

/** Label every object of one measure run carries (value: the run id), so cleanup finds them all. */
export const RUN_LABEL = "dynamo-efa/measure-run";
/** Label of the benchmark pod the NetworkPolicies select. */
export const BENCH_POD_LABEL = { "app.kubernetes.io/name": "dynamo-efa-measure" } as const;

/** The lines the container prints around the summary export. */
export const EXPORT_BEGIN = `=== dynamo-efa measure: ${AIPERF.summaryFile} ===`;
export const EXPORT_END = "=== dynamo-efa measure: end ===";

/** Where AIPerf writes (an emptyDir: the root filesystem is read-only). */
export const ARTIFACT_DIR = "/results";

/** One benchmark Job. */
export interface BenchJob {
  /** Object name (also the NetworkPolicies' prefix). */
  readonly name: string;
  readonly namespace: string;
  /** The graph whose Frontend is benchmarked. */
  readonly graph: string;
  /** Digest-pinned AIPerf image (`repo@sha256:<64 hex>`). */
  readonly image: string;
  /** `aiperf` arguments (`aiperfArgs`). */
  readonly args: readonly string[];
  /** What the init container fetches the tokenizer of, and the Secret with `HF_TOKEN` only when it needs one. */
  readonly tokenizer: BenchTokenizer;
  readonly runId: string;
  /** The Job's hard limit, seconds. */
  readonly deadlineSeconds: number;
  readonly runAsUser: number;
}

/** The tokenizer's model, revision and (only for a gated or private model) the graph's token Secret. */
export interface BenchTokenizer {
  readonly model: string;
  readonly revision: string;
  /** The Secret with `HF_TOKEN`, given to the init container only. @default - no token */
  readonly hfSecret?: string;
}

/** The init container that fetches the tokenizer, and the ConfigMap it runs the prefetch script from. */
export const TOKENIZER_CONTAINER = "tokenizer";
/** Seconds the tokenizer's download may take (a few MB). */
export const TOKENIZER_BUDGET_SECONDS = 600;
/** The ConfigMap of a Job's prefetch script: `<job>-prefetch`. */
export const benchConfigMapName = (job: string) =>
  `${job.slice(0, 63 - "-prefetch".length).replace(/-+$/, "")}-prefetch`;

/** Seconds a finished Job stays before Kubernetes deletes it, should the tool not have. */
export const JOB_TTL_SECONDS = 600;

/** `sh -c` script: AIPerf with the Job's args, then the export between the markers; exits with AIPerf's status. */
export const JOB_SCRIPT = [
  'aiperf "$@"; rc=$?',
  `echo '${EXPORT_BEGIN}'`,
  `cat '${ARTIFACT_DIR}/${AIPERF.summaryFile}' 2>/dev/null`,
  "echo",
  `echo '${EXPORT_END}'`,
  "exit $rc",
].join("\n");

const frontendLabels = (graph: string) => ({
  [OperatorLabel.GraphName]: graph,
  [OperatorLabel.Component]: GraphService.Frontend,
});

/** A preferred affinity to the Frontend's node: the benchmark measures the Frontend, not the path to it. */
function nearFrontend(graph: string): V1Affinity {
  return {
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchLabels: frontendLabels(graph) },
            topologyKey: HOSTNAME_TOPOLOGY_KEY,
          },
        },
      ],
    },
  };
}

/** The Job. */
export function renderBenchJob(j: BenchJob): V1Job {
  const labels = { ...BENCH_POD_LABEL, [RUN_LABEL]: j.runId };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: j.name, namespace: j.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: j.deadlineSeconds,
      ttlSecondsAfterFinished: JOB_TTL_SECONDS,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: j.runAsUser, seccompProfile: { type: "RuntimeDefault" } },
          affinity: nearFrontend(j.graph),
          initContainers: [tokenizerContainer(j)],
          containers: [
            {
              name: "aiperf",
              image: j.image,
              command: ["sh", "-c", JOB_SCRIPT, "aiperf"],
              args: [...j.args],
              // No token and no hub: the tokenizer is the init container's copy, read offline.
              env: [
                { name: "HOME", value: "/tmp" },
                { name: "HF_HOME", value: "/tmp/hf" },
                { name: "HF_HUB_OFFLINE", value: "1" },
              ],
              resources: { requests: { cpu: "4", memory: "8Gi" }, limits: { memory: "16Gi" } },
              securityContext: LOCKED,
              volumeMounts: [
                { name: "results", mountPath: ARTIFACT_DIR },
                { name: "tmp", mountPath: "/tmp" },
                { name: "tokenizer", mountPath: TOKENIZER_ROOT, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: "results", emptyDir: {} },
            { name: "tmp", emptyDir: {} },
            { name: "tokenizer", emptyDir: { sizeLimit: "1Gi" } },
            { name: "prefetch", configMap: { name: benchConfigMapName(j.name) } },
          ],
        },
      },
    },
  };
}

/** Every container of the Job: no privilege, no capability, read-only root, the runtime's seccomp filter. */
const LOCKED = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ["ALL"] },
  seccompProfile: RUNTIME_DEFAULT,
};

/** The init container: the prefetch script, METADATA_ONLY, into the tokenizer emptyDir; the token only if needed. */
function tokenizerContainer(j: BenchJob) {
  const t = j.tokenizer;
  return {
    name: TOKENIZER_CONTAINER,
    image: j.image,
    command: ["python3", `${PREFETCH_DIR}/${PREFETCH_FILE}`],
    env: [
      { name: "MODEL_ID", value: t.model },
      { name: "MODEL_REVISION", value: t.revision },
      { name: "CACHE_ROOT", value: TOKENIZER_ROOT },
      { name: METADATA_ONLY_ENV, value: "1" },
      { name: "DOWNLOAD_BUDGET_SECONDS", value: String(TOKENIZER_BUDGET_SECONDS) },
      ...(t.hfSecret
        ? [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: t.hfSecret, key: "HF_TOKEN", optional: true } } }]
        : []),
    ],
    resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } },
    securityContext: LOCKED,
    volumeMounts: [
      { name: "tokenizer", mountPath: TOKENIZER_ROOT },
      { name: "prefetch", mountPath: PREFETCH_DIR, readOnly: true },
    ],
  };
}

/** The ConfigMap the init container runs the prefetch script from (the script the graph's own pods run). */
export function renderBenchConfigMap(j: Pick<BenchJob, "name" | "namespace">): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: benchConfigMapName(j.name), namespace: j.namespace },
    data: { [PREFETCH_FILE]: PREFETCH_SCRIPT },
  };
}

/** The public internet on IPv4: where the hub and its CDN are; never the VPC, a node, the pods or link-local IMDS. */
export const PUBLIC_V4 = { cidr: "0.0.0.0/0", except: [...NON_INTERNET_V4] };

/**
 * The two NetworkPolicies: the Job out to the Frontend (plus DNS, and HTTPS to public addresses for the tokenizer's
 * download by the init container), the Frontend in from the Job. In the
 * project's own NetworkPolicy shape (components/inference/network.ts), so a test evaluates them together with the
 * graph's; they carry the run label in `metadata.labels` when created (`run.ts`).
 */
export function renderBenchPolicies(
  j: Pick<BenchJob, "name" | "namespace" | "graph" | "runId">,
): NetworkPolicyObject[] {
  const bench = { matchLabels: { ...BENCH_POD_LABEL, [RUN_LABEL]: j.runId } };
  const frontend = { matchLabels: frontendLabels(j.graph) };
  const http: PolicyPort[] = [{ protocol: "TCP", port: DynamoPort.FrontendHttp }];
  return [
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: `${j.name}-egress`, namespace: j.namespace },
      spec: {
        podSelector: bench,
        policyTypes: ["Ingress", "Egress"],
        egress: [
          { to: [{ podSelector: frontend }], ports: http },
          {
            to: [{ namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: "kube-system" } } }],
            ports: [
              { protocol: "UDP", port: DNS_PORT },
              { protocol: "TCP", port: DNS_PORT },
            ],
          },
          { to: [{ ipBlock: PUBLIC_V4 }], ports: [{ protocol: "TCP", port: HTTPS_PORT }] },
        ],
      },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: `${j.name}-to-frontend`, namespace: j.namespace },
      spec: {
        podSelector: frontend,
        policyTypes: ["Ingress"],
        ingress: [{ from: [{ podSelector: bench }], ports: http }],
      },
    },
  ];
}

/** The Frontend's in-cluster URL. */
export function frontendUrl(graph: string, namespace: string): string {
  return `http://${graphNames(graph, namespace).frontendService}.${namespace}.svc.cluster.local:${DynamoPort.FrontendHttp}`;
}

/** The summary export the container printed between the markers; undefined when it printed none. */
export function exportFromLog(log: string): string | undefined {
  const begin = log.lastIndexOf(EXPORT_BEGIN);
  if (begin < 0) return undefined;
  const end = log.indexOf(EXPORT_END, begin);
  if (end < 0) return undefined;
  const body = log.slice(begin + EXPORT_BEGIN.length, end).trim();
  return body === "" ? undefined : body;
}
