/**
 * Every version default in the package, in one dated place (docs/CONTRIBUTING.md rule 5). Each value is
 * overridable from component args and stack config; none is buried in code elsewhere.
 *
 * Reviewed: 2026-11-29. When bumping, update the source note next to the value.
 */

/** Date these defaults were last reviewed against their sources. */
export const VERSIONS_REVIEWED = "2026-11-29";

/**
 * The ai-dynamo/dynamo commit the image's Dynamo runtime is built from (`DYNAMO_REF`): f2fd3a16e (#7526,
 * 2026-03-19), the parent of ba3aef8ae (#7504, which moves TRT-LLM to 1.3.0rc8). Its `pyproject.toml` pins
 * `tensorrt-llm==1.3.0rc7` (since 10e5a4922, #7408, 2026-03-16) and `vllm[flashinfer,runai,otel]==0.17.1`
 * (since dba69e0f2, #7170, 2026-03-12, with the API fixes vLLM 0.17 needs): exactly the two engines this
 * image ships (`image.vllm`, `image.tensorrtLlm`). The tag v1.0.1 was built for vLLM 0.16.0 and TRT-LLM
 * 1.3.0rc5.post1, so it cannot be used with them. Checked fact: tests/contracts/facts/dynamo-pyproject.json.
 *
 * Skew, stated honestly: this runtime is main between the 1.0.x and 1.1.0 releases (its pyproject still says
 * version 1.0.0), while the operator chart stays at 1.0.1 (`charts.dynamoPlatform`). The runtime/operator
 * contract is the DGD CRD and the env/probes the operator injects; nothing at this commit is known to break
 * against operator 1.0.1, but it is NOT a released pair (docs/ARCHITECTURE.md#dynamo-on-kubernetes: same minor).
 */
export const DYNAMO_COMMIT = "f2fd3a16e78ce472d427f17ec85f764085a8ddd3";

/** Kubernetes / EKS. */
export const kubernetes = {
  /**
   * Default EKS Kubernetes version: a standard-support release in Dec 2026.
   * Source: docs/ARCHITECTURE.md#efa-on-eks (standard 1.34 until 2026-12-02, 1.35, 1.36; extended 1.32, 1.33).
   */
  defaultVersion: "1.35",
  /** Versions EKS supports (standard + extended) in Dec 2026. Source: docs/ARCHITECTURE.md#efa-on-eks. */
  supportedVersions: ["1.32", "1.33", "1.34", "1.35", "1.36"],
} as const;

/**
 * EKS managed add-ons. Versions are left to EKS's default for the cluster's Kubernetes version
 * unless overridden (add-on builds are published per Kubernetes version, so a fixed pin goes stale
 * on upgrade). The default VPC CNI for every supported version (1.32+) is >= v1.19 (AWS "Amazon VPC
 * CNI versions" table lists v1.19.0-eksbuild.1 already for 1.24-1.31), so `efa-only` interfaces work.
 */
export const addons = {
  /** Oldest VPC CNI that supports `efa-only` interfaces. Source: docs/ARCHITECTURE.md#efa-on-eks. */
  vpcCniMinimum: "1.18.5",
} as const;

/** Helm charts installed into the cluster. */
export const charts = {
  /**
   * AWS EFA device plugin (resource `vpc.amazonaws.com/efa`). Chart v0.5.30 = plugin v0.5.20; >= 0.5.10
   * is needed on p6-b200 (earlier versions counted NVLink `ibp*` devices as EFA).
   * Source: aws/eks-charts `stable/aws-efa-k8s-device-plugin/Chart.yaml` at 5239609 (2026-08-03).
   */
  efaDevicePlugin: { repo: "https://aws.github.io/eks-charts", chart: "aws-efa-k8s-device-plugin", version: "v0.5.30" },
  /**
   * NVIDIA device plugin. v0.19.0-0.19.2 enabled a MOFED mode that conflicts with the EFA plugin
   * (NVIDIA/k8s-device-plugin#1692, reverted by #1837 in 0.19.3 and 0.20.0); the cluster component
   * also sets `mofedEnabled: false` for every chart >= 0.19.0. Source: tag v0.20.0 (2026-08-19).
   */
  nvidiaDevicePlugin: {
    repo: "https://nvidia.github.io/k8s-device-plugin",
    chart: "nvidia-device-plugin",
    version: "0.20.0",
  },
  /**
   * EFA DRA driver (`cluster.deviceAllocation: dra`): AWS's build of kubernetes-sigs/dranet (image
   * `eks/dranet:v1.2.0-eksbuild.2` = dranet v1.2.0), driver `dra.net`, DeviceClass `efa.networking.k8s.aws`; each EFA
   * device carries the standard `resource.kubernetes.io/pcieRoot` attribute. The chart AWS's EKS guide installs
   * (`helm install aws-dranet eks/aws-dranet --namespace kube-system`).
   * Source: aws/eks-charts `stable/aws-dranet/Chart.yaml` at 5239609 (chart 1.0.0, #1322, 2026-04-30); facts in
   * tests/contracts/facts/chart-aws-dranet.json and dranet.json.
   */
  efaDraDriver: { repo: "https://aws.github.io/eks-charts", chart: "aws-dranet", version: "1.0.0" },
  /**
   * NVIDIA's GPU DRA driver (`cluster.deviceAllocation: dra`): DeviceClass `gpu.nvidia.com`, each GPU carrying the
   * standard `resource.kubernetes.io/pcieRoot` attribute; published as an OCI chart. The version AWS's EKS guide
   * installs. Source: kubernetes-sigs/dra-driver-nvidia-gpu tag v0.4.1 (764900e, 2026-06-30)
   * `deployments/helm/dra-driver-nvidia-gpu/Chart.yaml`; facts in tests/contracts/facts/chart-dra-driver-nvidia-gpu.json
   * and dra-driver-nvidia-gpu.json.
   */
  gpuDraDriver: {
    repo: "oci://registry.k8s.io/dra-driver-nvidia/charts",
    chart: "dra-driver-nvidia-gpu",
    version: "0.4.1",
  },
  /**
   * AWS Load Balancer Controller (optional; internal NLB in front of the frontend).
   * Source: aws/eks-charts release v0.0.246 (2026-10-05): "aws-load-balancer-controller v3.6.0".
   */
  awsLoadBalancerController: {
    repo: "https://aws.github.io/eks-charts",
    chart: "aws-load-balancer-controller",
    version: "3.6.0",
  },
  /**
   * Dynamo operator platform; same minor as the runtime image. Since Dynamo 1.0.0 the CRDs ship inside
   * this chart (`deploy/helm/charts/platform/components/operator/crds/`, applied by the operator's
   * `upgradeCRD` pre-install/pre-upgrade hook Job) and the separate `dynamo-crds` chart is gone (last
   * release 0.9.1; removed upstream in ai-dynamo/dynamo 5277fb9bb "simplify CRD management").
   * Installed from the chart tarball URL NVIDIA documents (`helm install dynamo-platform <url>`), not
   * through a repository index: `tarballUrl(version)`. 1.0.1 is the operator the field ran
   * (docs/FIELD-FAILURES.md#where-these-come-from).
   * Source: ai-dynamo/dynamo@5277fb9bbe326c94c75a2f079786a0a0f58fd71a
   * `deploy/helm/charts/platform/components/operator/values.yaml` (`upgradeCRD: true`); docs.nvidia.com/dynamo
   * installation guide (tarball URL pattern). Not re-checked against NGC from here (no network).
   */
  dynamoPlatform: {
    chart: "dynamo-platform",
    version: "1.0.1",
    /** The published chart tarball of `version`. */
    tarballUrl: (version: string) =>
      `https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-${version}.tgz`,
  },
  /**
   * kube-prometheus-stack (Prometheus Operator, Prometheus, Grafana 12.11.1, kube-state-metrics 8.4.0,
   * prometheus-node-exporter 4.56.1). Source: prometheus-community/helm-charts
   * `charts/kube-prometheus-stack/Chart.yaml` at ea930baee (2026-08-21); value keys in
   * tests/contracts/facts/chart-kube-prometheus-stack.json (subcharts: chart-<name>.json).
   */
  kubePrometheusStack: {
    repo: "https://prometheus-community.github.io/helm-charts",
    chart: "kube-prometheus-stack",
    version: "88.5.3",
  },
  /**
   * NVIDIA DCGM exporter (GPU telemetry DaemonSet; image 4.5.3-4.8.2). Source: NVIDIA/dcgm-exporter tag
   * 4.5.3-4.8.2 (691c927, 2026-05-06) `deployment/Chart.yaml`; repo URL from its README; facts in
   * tests/contracts/facts/chart-dcgm-exporter.json, metrics in dcgm-metrics.json.
   */
  dcgmExporter: {
    repo: "https://nvidia.github.io/dcgm-exporter/helm-charts",
    chart: "dcgm-exporter",
    version: "4.8.2",
  },
} as const;

/**
 * Components of the combined image: the defaults of the Dockerfile's version ARGs. A test asserts
 * that `dockerfiles/Dockerfile.dynamo-combined-efa` declares exactly these defaults.
 * Source: the field's 7-stage build (docs/ARCHITECTURE.md#the-combined-image).
 */
export const image = {
  cudaToolkit: "12.9",
  rust: "1.93.1",
  /** etcd release (optional KV store, for running the image outside the cluster). */
  etcd: "v3.5.21",
  /**
   * SHA-256 of `etcd-<etcd>-linux-amd64.tar.gz`. etcd publishes a SHA256SUMS file per release; this value was read
   * from a public Go module that pins the same release (code index id 54841929610, the only stored source found).
   */
  etcdSha256: "adddda4b06718e68671ffabff2f8cee48488ba61ad82900e639d108f2148501c",
  /**
   * UCX tag, built twice (CUDA 12 and CUDA 13). Dynamo's context.yaml @ f2fd3a16e names the moving branch `v1.20.x`;
   * a branch is not a pin, so this is the tag v1.20.0, which Dynamo's own container/deps/trtllm/install_nixl.sh
   * (UCX_VERSION="v1.20.0") and the field's REPRODUCIBILITY.md use. What v1.20.x pointed to on the build date
   * could not be read (no UCX mirror here).
   */
  ucx: "v1.20.0",
  libfabric: "v2.3.0",
  gdrcopy: "v2.5.1",
  nixl: "0.10.1",
  efaInstaller: "1.45.1",
  /**
   * Fingerprint of the key AWS signs every `aws-efa-installer-<version>.tar.gz` with (detached `.sig` beside the
   * tarball, key at https://efa-installer.amazonaws.com/aws-efa-installer.key, "Amazon EC2 EFA
   * <ec2-efa-maintainers@amazon.com>"). The Dockerfile installs the tarball only when the downloaded key has exactly
   * this fingerprint and gpg reports a VALIDSIG by it. Source: awsdocs/amazon-ec2-user-guide@0147f878
   * `doc_source/efa-start.md` (Step 3, "Verify the GPG key's fingerprint"); fact in
   * tests/contracts/facts/efa-installer-signing.json.
   */
  efaInstallerGpgFingerprint: "4E9091BCBB97A96B26B15E59A05480B1DD2D3CCC",
  /**
   * Optional extra pin: SHA-256 of `aws-efa-installer-<efaInstaller>.tar.gz`, checked after the GPG signature when
   * set. Empty by default: no digest of 1.45.1 published with provenance was found (AWS publishes a GPG signature,
   * not a digest; searched public code and docs 2026-11-30), and a guessed digest is worse than none.
   */
  efaInstallerSha256: "",
  ffmpeg: "7.1",
  /**
   * FFmpeg's release signing key (`ffmpeg-<v>.tar.xz.asc`, key https://ffmpeg.org/ffmpeg-devel.asc): the
   * `validpgpkeys` of Arch Linux's ffmpeg PKGBUILDs and other stored build scripts (code index ids 57693376690,
   * 9036759579, 61832809600). The tarball is installed only with a VALIDSIG by this key.
   */
  ffmpegGpgFingerprint: "FCF986EA15E6E293A5644F10B4322F04D67658D8",
  awsSdkCpp: "1.11.760",
  pytorchImageTag: "25.12-py3",
  tensorrtLlm: "1.3.0rc7",
  vllm: "v0.17.1",
  flashinfer: "v0.6.4",
  lmcache: "0.4.1",
  /**
   * DeepEP commit (vLLM's expert-parallel kernels): the one vLLM's tools/ep_kernels/install_python_libraries.sh
   * pins at mkim0628/vllm@bdc23434 (`DEEPEP_COMMIT_HASH="73b6ea4"`, the vLLM 0.17 line).
   */
  deepEp: "73b6ea4",
  /** Compile-stage base image (CUDA 12.9 devel). Source: docs/ARCHITECTURE.md#the-combined-image. */
  baseImage: "nvcr.io/nvidia/cuda-dl-base",
  baseImageTag: "25.06-cuda12.9-devel-ubuntu24.04",
  /** NGC PyTorch: TensorRT-LLM's torch (the vLLM environment has PyPI torch). Source: Dynamo context.yaml @ f2fd3a16e `trtllm`. */
  pytorchImage: "nvcr.io/nvidia/pytorch",
  /** Final-stage base image. Source: docs/ARCHITECTURE.md#the-combined-image. */
  runtimeImage: "nvcr.io/nvidia/cuda",
  runtimeImageTag: "12.9.1-runtime-ubuntu24.04",
  /** rustup-init used to install `rust`. Source: the field's Dockerfile (docs/ARCHITECTURE.md#the-combined-image). */
  rustup: "1.28.1",
  /**
   * SHA-256 of rustup-init 1.28.1 x86_64-unknown-linux-gnu (the value rust-lang/docker-rust pins; the same in
   * ai-dynamo's earlier Earthfile and several other stored Dockerfiles: code index ids 1353441120, 45505051805,
   * 34198138254).
   */
  rustupInitSha256: "a3339fb004c3d0bb9862ba0bce001861fe5cbde9c10d16591eb3f39ee6cd3e7f",
  /**
   * uv release (GitHub release tarball; the field used the unpinned `ghcr.io/astral-sh/uv:latest`).
   * Source: astral-sh/uv releases; tag 0.9.15 published Dec 2025 (seen in public renovate bumps).
   */
  uv: "0.9.15",
  /**
   * SHA-256 of `uv-x86_64-unknown-linux-gnu.tar.gz` 0.9.15, as the release's `.sha256` asset publishes it (two
   * independent stored sources agree: code index ids 32588917364, 69550424980).
   */
  uvSha256: "2053df0089327569cddd6afea920c2285b482d9b123f5db9f658273e96ab792c",
  /** sccache release. Source: the field's Dockerfile (docs/ARCHITECTURE.md#the-combined-image). */
  sccache: "v0.14.0",
  /**
   * SHA-256 of `sccache-v0.14.0-x86_64-unknown-linux-musl.tar.gz` (two independent stored sources agree: code index
   * ids 61815302501, 57544248230).
   */
  sccacheSha256: "8424b38cda4ecce616a1557d81328f3d7c96503a171eab79942fad618b42af44",
  /** maturin, builds the Dynamo Rust bindings wheel. Source: PyPI `maturin` (1.9.4, Aug 2025). */
  maturin: "1.9.4",
  /** ai-dynamo/dynamo commit built into the image: `DYNAMO_COMMIT` (why that commit: see its comment). */
  dynamo: DYNAMO_COMMIT,
  /** NVIDIA/nccl-tests tag (the in-image EFA bandwidth check). Source: github.com/NVIDIA/nccl-tests tags (v2.13.12, packaged by nixpkgs). */
  ncclTests: "v2.13.12",
  /** NVIDIA/nccl tag, used only with `BUILD_NCCL_FROM_SOURCE=1`. Source: github.com/NVIDIA/nccl tags (*unverified* tag name; override when opting in). */
  nccl: "v2.27.7-1",
  /** pip-licenses, run from a throw-away uv tool env to write /SBOM.txt and /THIRD-PARTY-LICENSES. Source: PyPI `pip-licenses` 5.0.0. */
  pipLicenses: "5.0.0",
  /** Index serving the TensorRT-LLM wheel. Source: docs/ARCHITECTURE.md#the-combined-image. */
  tensorrtLlmIndexUrl: "https://pypi.nvidia.com/",
} as const;

/**
 * Digest pins of the pulled images at their default tags (`image.baseImageTag`, `image.pytorchImageTag`,
 * `image.runtimeImageTag`), used whenever the tag is the default and no `imageDigests` entry is given (the seed
 * release's from-source build: dynamo-1.6 deploys the vendor's runtime images). Only digests read in public sources,
 * found by exact search of stored public files (re-checked 2026-12-01); no repository and commit could be recorded
 * for them, so there is no contract fact file, and a build that pulls them fails if the registry disagrees:
 * - base: three BuildKit logs of ai-dynamo container builds (`[dynamo_base 1/7] FROM
 *   nvcr.io/nvidia/cuda-dl-base:25.06-cuda12.9-devel-ubuntu24.04@sha256:ab128a0b...`);
 * - pytorch: a public Dockerfile `FROM nvcr.io/nvidia/pytorch:25.12-py3@sha256:1dc787f5...`, and a timed `docker
 *   pull` log whose `Digest:` line gives the same index digest;
 * - runtime: none. Stored sources give two different digests for nvidia/cuda:12.9.1-runtime-ubuntu24.04 (both on
 *   Docker Hub, none for nvcr.io), so this package cannot tell which one nvcr.io serves: pinned by tag only.
 * Every stage built from a pinned image checks `uname -m` is x86_64, so a digest of another platform fails early.
 */
export const imageDigests: { readonly base?: string; readonly pytorch?: string; readonly runtime?: string } = {
  base: "sha256:ab128a0b5d4298e62c691e478e42e0af98aecdb71ea17b1fea0261875faf4611",
  pytorch: "sha256:1dc787f5c6264fcc1c99809f99b84823e73ed4588d5a581b94290fc2a8fecff8",
};

/**
 * What the Dynamo commit `DYNAMO_COMMIT` pins in its pyproject.toml for the engines this image builds (checked
 * against tests/contracts/facts/dynamo-pyproject.json): `image.versions` overrides of these keys must satisfy the
 * pin, or be named in `acceptVersionSkew` (the Dynamo backend of that commit was written for these versions).
 * Each entry: the `versions.image` key, the pyproject requirement, and the PEP 440 spec.
 */
export const dynamoPins: readonly {
  readonly key: "vllm" | "tensorrtLlm" | "nixl";
  readonly project: string;
  readonly spec: string;
}[] = [
  { key: "vllm", project: "vllm", spec: "==0.17.1" },
  { key: "tensorrtLlm", project: "tensorrt-llm", spec: "==1.3.0rc7" },
  { key: "nixl", project: "nixl", spec: "<=0.10.1" },
];

/**
 * Base and runtime image tags known to match a CUDA toolkit of the compile stages. A toolkit not listed
 * needs `versions.baseImageTag` and `versions.runtimeImageTag` set explicitly.
 * Source: docs/ARCHITECTURE.md#the-combined-image (12.9; ai-dynamo/dynamo@001eacbe container/context.yaml:
 * cuda-dl-base 25.11 for 13.0;
 * the matching `nvcr.io/nvidia/cuda` runtime tag is *unverified*, so 13.0 is not listed).
 */
export const imageTagsByCudaToolkit: Readonly<
  Record<string, { readonly baseImageTag: string; readonly runtimeImageTag: string }>
> = {
  "12.9": { baseImageTag: image.baseImageTag, runtimeImageTag: image.runtimeImageTag },
};

/**
 * The small image the per-node model prefetch DaemonSet runs (`inference.prefetchImage`): Python 3.12 (the script is
 * standard library only) plus coreutils' `chown` and `sleep`, about 50 MB, so the download starts seconds after a GPU
 * node joins instead of after the serving image (tens of GB: components/catalog/images.ts) is pulled. Pinned by digest: the multi-arch index of
 * `python:3.12.14-slim-trixie` (= `3.12-slim` at the time), as BuildKit resolved it in public build logs and as
 * several public Dockerfiles pin it (found 2026-12-01 by code search; *not* re-resolved against Docker Hub from
 * here: no network). Override it with an ECR mirror for private or air-gapped clusters.
 */
export const prefetchImage: string =
  "docker.io/library/python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea";
