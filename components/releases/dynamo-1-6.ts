/**
 * `dynamo-1.6`: Dynamo 1.6.2 (tag 28f9765, branch release/1.6.2, 2026-11-05), the current release, with the vendors'
 * per-backend EFA runtime images. The default of both shipped stacks. Every value names where it was read; where a
 * 1.6.2 file was out of reach the closest readable upstream state is named instead, with what may differ.
 */
import { NIXL_FI_MORE_DEADLOCK, PARTIAL_EFA_PCIE } from "./known-issues";
import { CLUSTER_WIDE_OPERATOR, GraphApiVersion, Release, ReleaseId } from "./types";

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
};
