/**
 * `dynamo-1.6`: Dynamo 1.6.2 (tag 28f9765, branch release/1.6.2, 2026-11-05), the current release, with the vendors'
 * per-backend EFA runtime images. The default of both shipped stacks. Every value names where it was read; where a
 * 1.6.2 file was out of reach the closest readable upstream state is named instead, with what may differ.
 */
import { NIXL_FI_MORE_DEADLOCK, PARTIAL_EFA_PCIE } from "./known-issues";
import { COMMON_FLOWS } from "./flows";
import { DynamoPort } from "../_shared/names";
import {
  CLUSTER_WIDE_OPERATOR,
  Flow,
  FlowPeer,
  GraphApiVersion,
  ModelCards,
  Release,
  ReleaseId,
  RuntimeFacts,
} from "./types";

/** Dynamo's machine-readable release table (docs/fern/components/releases.data.ts), as the field audit read it. */
const RELEASES_TABLE =
  "https://docs.nvidia.com/dynamo/v1.6.2/reference/releases-data.md (rendering of docs/fern/components/releases.data.ts)";
/** NGC repository of the Dynamo runtime images. */
const NGC = "nvcr.io/nvidia/ai-dynamo";
/** EFA image tag form from 1.3.0 on (`-efa`, multi-arch; before: `-efa-amd64`). */
const EFA_TAGS =
  "ai-dynamo/dynamo@0059bada:docs/fern/components/releases.data.ts v1.3.0 delta: 'EFA variants retagged from -efa-amd64 to -efa'";

/**
 * What a vendor runtime image runs on: Dynamo's vLLM runtime compiles its own kernels for 9.0 and 10.0
 * (container/deps/vllm/install_vllm.sh's TORCH_CUDA_ARCH_LIST at 001eacbe; vLLM's own wheels carry a wider
 * list); TensorRT-LLM lists its supported hardware by architecture.
 */
export const VLLM_RUNTIME_ARCHS =
  'ai-dynamo/dynamo@001eacbe:container/deps/vllm/install_vllm.sh: TORCH_CUDA_ARCH_LIST="9.0;10.0" for the kernels the vLLM runtime image compiles';
export const TRTLLM_SUPPORTED_HARDWARE =
  "nvidia.github.io/TensorRT-LLM/supported-hardware.html: Blackwell (B200, GB200), Hopper (H100, H200, GH200), Ada Lovelace (L20, L40/L40S), Ampere (A100)";

/** The CUDA of each backend's runtime image, which is the engine's: nothing of 1.6.2 is built from source here. */
const VLLM_CUDA = {
  version: "13.0",
  source: `${RELEASES_TABLE}: CUDA 13 only from 1.3.0 (vLLM 13.0) [verify for 1.6.2]`,
};
const TRTLLM_CUDA = { version: "13.1", source: `${RELEASES_TABLE}: TensorRT-LLM images CUDA 13.1 [verify for 1.6.2]` };

/** Where each setting below was read (tests/contracts/facts/dynamo-runtime-settings.json holds them). */
const LEDGER = "ai-dynamo/dynamo@0f1b0113:docs/fern/pages/reference/general/releases/deprecations.mdx";
const RUNTIME_ARGS = "ai-dynamo/dynamo@007ec174:components/src/dynamo/common/configuration/groups/runtime_args.py";
const SETTINGS_FACT = "tests/contracts/facts/dynamo-runtime-settings.json";

/** The planes and discovery the Frontend and the workers must share (a mismatch and they never see each other). */
const PLANES = [
  {
    name: "DYN_DISCOVERY_BACKEND",
    value: "kubernetes",
    why: "the platform installs no etcd and discovers through the Kubernetes API; the runtime's own default is etcd",
    source: `${RUNTIME_ARGS} --discovery-backend (default "etcd"); ${SETTINGS_FACT}`,
  },
  {
    name: "DYN_REQUEST_PLANE",
    value: "tcp",
    why: "requests go to the workers' TCP RPC server on the pinned port the flows admit; nats needs a NATS this platform does not run",
    source: `${RUNTIME_ARGS} --request-plane (default "tcp", choices tcp, nats)`,
  },
  {
    name: "DYN_RESPONSE_PLANE",
    value: "tcp",
    why: "answers stream back over TCP, which the flows admit (quic is UDP); Frontend and workers must match. A runtime older than the variable ignores it",
    source: `${RUNTIME_ARGS} --response-plane ("Frontend and workers must match", choices tcp, quic)`,
  },
  {
    name: "DYN_EVENT_PLANE",
    value: "zmq",
    why: "the 1.6 platform runs no NATS (#11951), and the stored sources disagree on the default (zmq for every backend, #10902, vs NATS for etcd/kubernetes), so it is stated: each publisher binds a kernel-chosen port the Frontend -> workers flow admits",
    source: `${RUNTIME_ARGS} --event-plane; ai-dynamo/dynamo@0e8f3009:lib/runtime/src/transports/event_plane/mod.rs; ${LEDGER} v1.4.0 #11951`,
  },
] as const;

/** Dynamo 1.6's runtime settings and its model-card decision. */
const RUNTIME_1_6: RuntimeFacts = {
  modelCards: {
    mode: ModelCards.SelfHosted,
    why:
      "upstream's default from 1.4.0 and the path its operator wires (DYN_SYSTEM_PORT=9090 on every worker): the " +
      "Frontend fetches each card's files from the worker that published it, so it needs no copy of the model, no " +
      "init container and no token, in every cache mode. The other choice needs self-hosting off on every worker " +
      "(cards of both kinds park the model in a silent Conflict in the discovery controller)",
    source: `${LEDGER} v1.4.0 "DYN_SELF_HOST_METADATA now defaults to ON" (#11417); ai-dynamo/dynamo@00287eff:lib/llm/src/local_model.rs move_to_self_host, self_host_base_url`,
  },
  workerEnv: [
    ...PLANES,
    {
      name: "DYN_SYSTEM_PORT",
      value: String(DynamoPort.WorkerSystem),
      why: "the system status server the probes, the metrics and the self-hosted card URLs use; the operator sets the same value, stated so the cards never depend on it",
      source: `${LEDGER} v1.4.0 #11417 migration ("Set DYN_SYSTEM_PORT (e.g. 9090) on workers"); tests/contracts/facts/dynamo-network.json workerSystemPort`,
    },
    {
      name: "DYN_SELF_HOST_METADATA",
      value: "1",
      why: "model cards are self-hosted on this release (runtime.modelCards); every worker states it, so no mix of card kinds",
      source: `ai-dynamo/dynamo@00287eff:lib/llm/src/local_model.rs env_self_host_metadata_default (1, true, yes, on); ${LEDGER} v1.4.0 #11417`,
    },
    {
      name: "DYN_HEALTH_CHECK_ENABLED",
      value: "true",
      why: "canary requests keep the worker's /health honest, and the readiness probe reads /health: an engine that stops answering leaves the Service. Upstream's operator default from 1.5.0",
      source: `${LEDGER} v1.5.0 "Worker canary health checks enabled by default in operator-rendered pods" (#11083)`,
    },
  ],
  frontendEnv: [...PLANES],
  frontendSwitches: {
    adminApiOff: {
      name: "DYN_DISABLE_FRONTEND_ADMIN_API",
      value: "1",
      why: "the admin API (POST /busy_threshold) answers on the public port with no authentication",
      source: `${LEDGER} v1.3.0 "Frontend nvext / admin-API master switches renamed to opt-out" (#11123); ${SETTINGS_FACT}`,
    },
    nvextOff: {
      name: "DYN_DISABLE_FRONTEND_NVEXT",
      value: "1",
      why: "nvext and its routing-override headers let any caller pin a request to one worker",
      source: `${LEDGER} v1.3.0 #11123; ${SETTINGS_FACT} (drops request.nvext and the x-dynamo-*-instance-id headers)`,
    },
  },
  routerModes: {
    modes: ["round-robin", "kv"],
    source:
      "ai-dynamo/dynamo components/src/dynamo/frontend/frontend_args.py (stored copy c6b40e78) --router-mode, choices round-robin, random, kv, direct, default round-robin; upstream's EKS example runs --router-mode kv",
  },
};

/**
 * Flows of the 1.6 planes: the Frontend fetches self-hosted card files from each worker's system port, and subscribes
 * to every worker's ZMQ event publisher (KV events, load metrics), which binds a port the kernel picks and advertises
 * it in discovery.
 */
const FLOWS_1_6: readonly Flow[] = [
  {
    id: "frontend-workers-model-cards",
    from: FlowPeer.Frontend,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: DynamoPort.WorkerSystem,
    why: "the Frontend fetches each worker's self-hosted model card files (http://<worker>:9090/v1/metadata/...)",
    source: `ai-dynamo/dynamo@00287eff:lib/llm/src/local_model.rs self_host_base_url (the system status server's port); ${LEDGER} v1.4.0 #11417`,
  },
  {
    id: "frontend-workers-event-plane",
    from: FlowPeer.Frontend,
    to: FlowPeer.Workers,
    protocol: "TCP",
    port: "any",
    portWhy:
      "each publisher binds tcp://0.0.0.0:0 (the kernel picks a free port) and registers that endpoint in discovery; the subscriber connects to it",
    why: "the ZMQ event plane: the Frontend subscribes to every worker's KV events and load metrics",
    source:
      "ai-dynamo/dynamo@0e8f3009:lib/runtime/src/transports/event_plane/mod.rs (direct mode binds port 0, DiscoverySpec::EventChannel); ai-dynamo/dynamo@0a8ea9dd:lib/runtime/src/transports/event_plane/zmq_transport.rs ZmqPubTransport::bind",
  },
];

export const dynamo16: Release = {
  id: ReleaseId.Dynamo16,
  title: "Dynamo 1.6.2: operator 1.6.2, v1beta1 graph, vendor per-backend EFA runtime images",
  dynamo: { version: "1.6.2", commit: "28f9765", source: "tag v1.6.2 = 28f9765 (branch release/1.6.2, 2026-11-05)" },
  platform: {
    chart: {
      version: "1.6.2",
      source: "NGC chart tarball dynamo-platform-<release>.tgz, one per release (release-artifacts pages 1.0.1-1.4.2)",
    },
    natsInstalledByDefault: false,
    nats: false,
    values: CLUSTER_WIDE_OPERATOR,
    valuesFact: "chart-dynamo-platform-1.6",
  },
  graph: {
    apiVersion: GraphApiVersion.V1beta1,
    crdFact: "dgd-crd-v1beta1",
    runtimeVersionOverride: {
      version: "1.6.2",
      source:
        "deprecations ledger @0f1b0113 v1.5.0 (#10494): a digest, custom or :latest image tag requires " +
        "runtimeVersionOverride, a bare version, on each component",
    },
    source: "v1beta1 is the storage version from 1.5.0 (#11904, #11177); v1alpha1 webhooks removed",
  },
  engines: {
    vllm: {
      engine: { version: "0.31.0", source: RELEASES_TABLE },
      nixl: { version: "1.4.1", source: `${RELEASES_TABLE} (nixlVllm)` },
      cuda: VLLM_CUDA,
      vendorImage: {
        repository: `${NGC}/vllm-runtime`,
        tag: "1.6.2-efa",
        source: EFA_TAGS,
        cudaArchs: { archs: ["sm_90", "sm_100"], source: VLLM_RUNTIME_ARCHS },
        cudaToolkit: VLLM_CUDA,
      },
    },
    trtllm: {
      engine: { version: "1.3.0rc29", source: RELEASES_TABLE },
      nixl: { version: "1.3.1", source: `${RELEASES_TABLE} (nixlTrtllm)` },
      cuda: TRTLLM_CUDA,
      vendorImage: {
        repository: `${NGC}/tensorrtllm-runtime`,
        tag: "1.6.2-efa",
        source: EFA_TAGS,
        cudaArchs: { archs: ["sm_80", "sm_89", "sm_90", "sm_100"], source: TRTLLM_SUPPORTED_HARDWARE },
        cudaToolkit: TRTLLM_CUDA,
      },
    },
  },
  frontendImage: {
    repository: `${NGC}/dynamo-frontend`,
    tag: "1.6.2",
    source: "release-artifacts: dynamo-frontend:<release> published since 0.8.0",
    aiperf: {
      version: "0.12.0",
      source:
        "tests/contracts/facts/dynamo-frontend-aiperf.json: the frontend image installs Dynamo's benchmarks package, " +
        "which pins aiperf (0.10.0 at main 2026-08-21; 0.12.0 on main from #14492, 2026-09-08, and on release/1.5.0 " +
        "from #14656; 0.13.0 in a later stored main copy); the v1.6.2 tag itself was not readable [verify for 1.6.2]",
    },
  },
  ucx: { version: "1.21.x", source: `${RELEASES_TABLE}: 1.4.x ships UCX 1.21.x, 1.7.0 1.22.x [verify for 1.6.2]` },
  libfabric: {
    version: "2.6.0amzn1.0",
    source: "the EFA installer's libfabric (AWS efa-changelog: 1.50.0 -> libfabric 2.6.0amzn1.0)",
  },
  efaInstaller: {
    version: "1.50.0",
    source: "ai-dynamo/dynamo@0059bada releases.data.ts v1.4.2 delta: 'EFA Installer v1.50' [verify for 1.6.2]",
  },
  knownIssues: [NIXL_FI_MORE_DEADLOCK, PARTIAL_EFA_PCIE],
  runtime: RUNTIME_1_6,
  flows: [...COMMON_FLOWS, ...FLOWS_1_6],
};
