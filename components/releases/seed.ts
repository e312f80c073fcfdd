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
import { CLUSTER_WIDE_OPERATOR, GraphApiVersion, Release, ReleaseId } from "./types";

const PYPROJECT = `ai-dynamo/dynamo@${DYNAMO_COMMIT}:pyproject.toml (tests/contracts/facts/dynamo-pyproject.json)`;
const CONTEXT = `ai-dynamo/dynamo@${DYNAMO_COMMIT}:container/context.yaml (docs/ARCHITECTURE.md#the-combined-image)`;
/** Dynamo's release-artifacts page for the operator release the seed installs. */
const ARTIFACTS_101 =
  "https://docs.nvidia.com/dynamo/latest/resources/release-artifacts (Current Release: Dynamo v1.0.1; EFA images 'Experimental')";

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
};
