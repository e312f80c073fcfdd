/**
 * `seed`: the version set this project was built from (docs/FIELD-FAILURES.md#the-field-report), as versions.ts pinned it
 * on 2026-11-29 (a Dynamo main commit between 1.0.x and 1.1.0, operator chart 1.0.1, the `v1alpha1` graph, vLLM 0.17.1,
 * TensorRT-LLM 1.3.0rc7, NIXL 0.10.1, EFA installer 1.45.1, CUDA 12.9), built into one combined image. Kept so a stack
 * deployed before releases existed renders unchanged (`release: seed`), and as the first hop of the upgrade path
 * (docs/RELEASES.md). The build pins themselves stay in versions.ts `image` (the Dockerfile's ARG defaults).
 */
import { TRTLLM_SUPPORTED_HARDWARE, VLLM_RUNTIME_ARCHS } from "./dynamo-1-6";
import { charts, DYNAMO_COMMIT, image } from "../versions";
import { NIXL_0_10_1_EFA, PARTIAL_EFA_PCIE } from "./known-issues";
import { CLUSTER_WIDE_OPERATOR, GraphApiVersion, ModelCards, Release, ReleaseId, RuntimeFacts } from "./types";
import { COMMON_FLOWS, natsFlows } from "./flows";
import { DynamoPort } from "../_shared/names";

const PYPROJECT = `ai-dynamo/dynamo@${DYNAMO_COMMIT}:pyproject.toml (tests/contracts/facts/dynamo-pyproject.json)`;
const CONTEXT = `ai-dynamo/dynamo@${DYNAMO_COMMIT}:container/context.yaml (docs/ARCHITECTURE.md#the-combined-image)`;
/** Dynamo's release-artifacts page for the operator release the seed installs. */
const ARTIFACTS_101 =
  "https://docs.nvidia.com/dynamo/latest/resources/release-artifacts (Current Release: Dynamo v1.0.1; EFA images 'Experimental')";

/** Where the seed runtime's defaults were read (f2fd3a16e; tests/contracts/facts/dynamo-network.json). */
const NETWORK = "tests/contracts/facts/dynamo-network.json (ai-dynamo/dynamo db88c9530 and f2fd3a16e)";

/** The planes and discovery of the seed, as its runtime and chart default them, stated. */
const PLANES = [
  {
    name: "DYN_DISCOVERY_BACKEND",
    value: "kubernetes",
    why: "the seed's chart discovers through the Kubernetes API and installs no etcd",
    source: `${NETWORK} discoveryBackend "kubernetes", etcdInstalled false`,
  },
  {
    name: "DYN_REQUEST_PLANE",
    value: "tcp",
    why: "requests go to the workers' TCP RPC server on the pinned port the flows admit",
    source: `${NETWORK} requestPlaneDefault "tcp"`,
  },
  {
    name: "DYN_EVENT_PLANE",
    value: "nats",
    why: "the seed's platform runs NATS, its runtime's default event plane; the NATS flows admit it",
    source: `${NETWORK} eventPlaneDefault "nats", natsEnabled true`,
  },
] as const;

/** The seed's runtime settings: the Frontend keeps its own copy of the card's files (its runtime cannot self-host). */
const RUNTIME_SEED: RuntimeFacts = {
  modelCards: {
    mode: ModelCards.FrontendCopy,
    why:
      "the seed's runtime f2fd3a16e (2026-03-19) predates self-hosted metadata (PR #8855, 2026-04-29): workers publish " +
      "their own paths, so the Frontend reads a copy at the same path (the model-config init container), on the " +
      "shared volume, or from the hub with the token",
    source:
      "tests/contracts/facts/dynamo-model-card.json (f2fd3a16e); ai-dynamo/dynamo PR #8855 (self-hosted metadata, merged 2026-04-29)",
  },
  workerEnv: [
    ...PLANES,
    {
      name: "DYN_SYSTEM_PORT",
      value: String(DynamoPort.WorkerSystem),
      why: "the system status server the probes and the metrics use; the operator sets the same value",
      source: `${NETWORK} workerSystemPort`,
    },
    {
      name: "DYN_SELF_HOST_METADATA",
      value: "0",
      why: "not read by this runtime; stated so a runtime moved past #8855 keeps publishing the paths the Frontend's copy is laid out for",
      source: "ai-dynamo/dynamo@00287eff:lib/llm/src/local_model.rs env_self_host_metadata_default (0 is off)",
    },
    {
      name: "DYN_HEALTH_CHECK_ENABLED",
      value: "false",
      why: "the seed's operator sets false (canary checks were opt-in before 1.5.0); stated so readiness means the same whatever operator runs the graph",
      source:
        "ai-dynamo/dynamo deploy/operator/internal/dynamo graph tests of the 1.x operator (DYN_HEALTH_CHECK_ENABLED false); deprecations.mdx@0f1b0113 v1.5.0 #11083",
    },
  ],
  frontendEnv: [...PLANES],
  frontendSwitches: {},
  routerModes: {
    modes: ["round-robin"],
    source: "the Frontend's default; the KV router is not offered on the seed (not read at f2fd3a16e)",
  },
};

export const seed: Release = {
  id: ReleaseId.Seed,
  title: "the seed's set: Dynamo main f2fd3a16e (1.0.x-1.1.0), operator 1.0.1, v1alpha1, one combined image",
  dynamo: { version: "1.0.0", commit: DYNAMO_COMMIT, source: `${PYPROJECT} (ai-dynamo-runtime==1.0.0)` },
  platform: {
    chart: {
      version: charts.dynamoPlatform.version,
      source:
        "tests/contracts/facts/chart-dynamo-platform.json (read at db88c9530, the 1.0.0 bump the 1.0 line was cut from)",
    },
    natsInstalledByDefault: true,
    nats: true,
    values: CLUSTER_WIDE_OPERATOR,
    valuesFact: "chart-dynamo-platform",
  },
  graph: {
    apiVersion: GraphApiVersion.V1alpha1,
    crdFact: "dgd-crd",
    source: "tests/contracts/facts/dgd-crd.json (v1alpha1 at db88c9530)",
  },
  engines: {
    vllm: {
      engine: { version: image.vllm.replace(/^v/, ""), source: `${PYPROJECT} vllm[flashinfer,runai,otel]==0.17.1` },
      nixl: { version: image.nixl, source: `${PYPROJECT} nixl[cu12]<=0.10.1; ${CONTEXT} nixl_ref 0.10.1` },
      cuda: { version: image.cudaToolkit, source: `${CONTEXT} vllm.cuda12.9` },
      vendorImage: {
        repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime",
        tag: "1.0.1-efa-amd64",
        source: `${ARTIFACTS_101}: vllm-runtime:1.0.1-efa-amd64, vLLM v0.16.0, CUDA 12.9 (not the seed's vLLM 0.17.1)`,
        cudaArchs: { archs: ["sm_90", "sm_100"], source: VLLM_RUNTIME_ARCHS },
        cudaToolkit: { version: "12.9", source: `${ARTIFACTS_101}: vllm-runtime:1.0.1-efa-amd64, CUDA 12.9` },
      },
    },
    trtllm: {
      engine: { version: image.tensorrtLlm, source: `${PYPROJECT} tensorrt-llm==1.3.0rc7` },
      nixl: { version: image.nixl, source: `${CONTEXT} nixl_ref 0.10.1` },
      cuda: {
        version: image.cudaToolkit,
        source: `${CONTEXT}: the build's toolkit; TensorRT-LLM and NGC torch inside it are CUDA 13.1 builds (trtllm.cuda13.1)`,
      },
      vendorImage: {
        repository: "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime",
        tag: "1.0.1-efa-amd64",
        source: `${ARTIFACTS_101}: tensorrtllm-runtime:1.0.1-efa-amd64, TRT-LLM v1.3.0rc5.post1, CUDA 13.1 (not the seed's rc7)`,
        cudaArchs: { archs: ["sm_80", "sm_89", "sm_90", "sm_100"], source: TRTLLM_SUPPORTED_HARDWARE },
        cudaToolkit: { version: "13.1", source: `${ARTIFACTS_101}: tensorrtllm-runtime:1.0.1-efa-amd64, CUDA 13.1` },
      },
    },
  },
  ucx: { version: image.ucx, source: "components/versions.ts image.ucx (context.yaml names the branch v1.20.x)" },
  libfabric: { version: image.libfabric, source: `${CONTEXT} nixl_libfabric_ref v2.3.0` },
  efaInstaller: { version: image.efaInstaller, source: `${CONTEXT} efa_version 1.45.1` },
  knownIssues: [NIXL_0_10_1_EFA, PARTIAL_EFA_PCIE],
  runtime: RUNTIME_SEED,
  flows: [...COMMON_FLOWS, ...natsFlows(`${NETWORK} natsPort 4222, eventPlaneDefault "nats"`)],
};
