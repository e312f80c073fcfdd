/**
 * Every invariant of a disaggregated graph, checked at once (docs/CONTRIBUTING.md rule 6). Pure: returns the
 * problems, each naming the argument path, the bad value, what is allowed and the fix. The model-id rule the
 * prefetch script shares is the last section.
 */
import { CpuArch } from "../catalog/instances";
import { GraphApiVersion, isReleaseId, release, releaseProblems } from "../releases";
import { DeviceAllocation } from "../catalog/pool";
import { joinPath, Problem, show } from "../_shared/problems";
import { checkNumberRange, checkRange } from "../_shared/limits";
import { K8S_NAME } from "../_shared/names";
import { didYouMean, oneOf } from "../_shared/suggest";
import {
  Backend,
  FrontendServiceType,
  INFERENCE_DEFAULTS,
  Placement,
  ResolvedInference,
  INFERENCE_LIMITS,
  ROLE_LIMITS,
  KvTransportChoice,
  RouterMode,
  roleArgs,
  ServingRole,
  SERVING_ROLES,
} from "./args";
import { ModelCacheMode, derivedBudgets, LOAD_ASSUMPTIONS } from "./model-load";
import { KvCacheDtype, modelFacts } from "../catalog/models";
import { efaPerWorker, nodesPerRole, poolHasEfa, totalGpus, usesEfa, workerShape, validateModelFit } from "./fit";
import { networkProblems } from "./network";
import { isDigestPinned } from "../image/ref";
import { validateWorkload } from "./workload";

/** `repo@sha256:<64 hex>`: the only image form accepted (deployments roll only on real change). */
export const DIGEST_PINNED = /^[^\s@]+@sha256:[0-9a-f]{64}$/;

/** The arguments the model-fit check reads: it runs only when none of them has a problem. */
const FIT_INPUTS = [
  "backend",
  "model",
  "maxModelLen",
  "gpuMemoryUtilization",
  "kvCacheDtype",
  "gpuPool",
  "prefill",
  "decode",
];

const choices = <T extends Record<string, string>>(o: T): string[] => Object.values(o);

/** Problems with the image ref (also used at deploy time when the ref is an Output). */
export function validateImage(image: string, path = "image"): Problem[] {
  // The one reference parser `DynamoImage.ref` goes through: `../../x@sha256:...`, upper case or `$(id)@...` match
  // a "non-space@digest" pattern but no registry pulls them (the pods would sit in InvalidImageName).
  if (isDigestPinned(image)) return [];
  return [
    {
      propertyPath: path,
      reason: `must be digest-pinned as "<repository>@sha256:<64 hex digits>" so the graph rolls only on a real image change; got ${show(image)}. Use DynamoImage.ref or append the digest shown by \`docker buildx imagetools inspect\``,
    },
  ];
}

function closedChoice(path: string, value: string, allowed: readonly string[]): Problem[] {
  if (allowed.includes(value)) return [];
  return [
    {
      propertyPath: path,
      reason: `must be ${oneOf(allowed)}; got ${show(value)}${didYouMean(String(value), allowed)}`,
    },
  ];
}

function validateRole(r: ResolvedInference, role: ServingRole, at: (k: string) => string): Problem[] {
  const a = roleArgs(r, role);
  const base = at(role);
  const out = [
    ...checkRange(joinPath(base, "replicas"), a.replicas, ROLE_LIMITS.replicas),
    ...checkRange(joinPath(base, "gpusPerWorker"), a.gpusPerWorker, ROLE_LIMITS.gpusPerWorker),
  ];
  if (out.length > 0 || !r.pool) return out;
  const p = r.pool;
  const gpw = joinPath(base, "gpusPerWorker");
  if (p.gpusPerNode % a.gpusPerWorker !== 0) {
    out.push({
      propertyPath: gpw,
      reason: `(${a.gpusPerWorker}) must divide the ${p.gpusPerNode} GPUs of a ${p.instanceType} node; use one of ${divisors(p.gpusPerNode).join(", ")}`,
    });
    return out;
  }
  if (usesEfa(r)) {
    const efa = efaPerWorker(p, a.gpusPerWorker);
    if (!Number.isInteger(efa) || efa < 1) {
      const min = Math.ceil(1 / p.efaPerGpu);
      out.push({
        propertyPath: gpw,
        reason: `(${a.gpusPerWorker}) gives ${efa} EFA devices per worker on ${p.instanceType} (${p.efaPerGpu} EFA per GPU); a worker needs a whole number >= 1 of EFA devices: use a multiple of ${min} GPUs per worker`,
      });
    }
  }
  return out;
}

/** The pool's pre-allocated hugepages must give every co-located worker at least one page (F14). */
function validateHugepages(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const p = r.pool;
  if (!usesEfa(r) || p.hugepages2MiPerNode === 0) return [];
  const shapes = SERVING_ROLES.map((role) => workerShape(r, role));
  const worst = shapes.reduce((a, b) => (b.workersPerNode > a.workersPerNode ? b : a));
  if (worst.hugepages2MiPages >= 1) return [];
  return [
    {
      propertyPath: at("gpuPool.hugepages2MiPerNode"),
      reason: `(${p.hugepages2MiPerNode}) 2 MiB hugepages per node leave less than one page for each of ${worst.workersPerNode} workers per node; set the value measured on your nodes (HugePages_Total in /proc/meminfo), 0 to run without hugepages (FI_EFA_USE_HUGE_PAGE=0), or use more GPUs per worker`,
    },
  ];
}

function divisors(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);
}

/**
 * `rolesValid`: whether every role's replicas and gpusPerWorker passed their own checks. The pool's capacity is
 * compared only then: a gpusPerWorker of 3 on 8-GPU nodes is one mistake, reported where it was written, not also as
 * GPUs the pool lacks.
 */
function validatePool(r: ResolvedInference, at: (k: string) => string, rolesValid: boolean): Problem[] {
  const p = r.pool;
  if (!p)
    return [
      {
        propertyPath: at("gpuPool"),
        reason: "is required: pass EfaCluster.gpuPools[<name>] or GpuPoolFacts written by hand",
      },
    ];
  const out: Problem[] = [];
  if (p.cpuArch !== CpuArch.X86_64) {
    out.push({
      propertyPath: at("gpuPool.cpuArch"),
      reason: `must be "x86_64" (the combined image is linux/amd64); got ${show(p.cpuArch)}`,
    });
  }
  if (usesEfa(r) && p.gpuDirectRdma !== true) {
    out.push({
      propertyPath: at("gpuPool"),
      reason: `pool ${show(p.name)} (${p.instanceType}) has EFA but no GPUDirect RDMA (${show(p.gpuDirectRdma)}); NIXL's LIBFABRIC plugin needs it to move KV cache from GPU memory. Use a P-family pool (p4d, p5, p5e, p5en, p6) or disable EFA on this pool (KV then moves over UCX)`,
    });
  }
  const want = rolesValid ? totalGpus(r) : NaN;
  const have = p.nodes * p.gpusPerNode;
  if (Number.isFinite(want) && want > have) {
    out.push({
      propertyPath: at("gpuPool"),
      reason: `prefill ${r.prefill.replicas} x ${r.prefill.gpusPerWorker} GPU + decode ${r.decode.replicas} x ${r.decode.gpusPerWorker} GPU = ${want} GPUs exceed the pool's ${have} GPUs (${p.nodes} x ${p.instanceType} x ${p.gpusPerNode}); add nodes or lower replicas`,
    });
  }
  if (r.kvTransportChoice === KvTransportChoice.Libfabric && !poolHasEfa(p)) {
    out.push({
      propertyPath: at("kvTransport"),
      reason: `"libfabric" moves KV over EFA, but pool ${show(p.name)} (${p.instanceType}) has no EFA attached; use "auto" or "ucx" (KV over TCP), or a P-family pool with EFA`,
    });
  }
  if (r.placement === Placement.SeparateNodes && p.nodes < 2) {
    out.push({
      propertyPath: at("placement"),
      reason: `"separate-nodes" needs a pool of >= 2 nodes; pool ${show(p.name)} has ${p.nodes}. Add a node or set placement "any"`,
    });
  } else if (Number.isFinite(want) && want <= have) out.push(...validateRoleNodes(r, at));
  return out;
}

/** `placement "any"` as a fix only where the pack allows it: over EFA it refuses it (prefill-decode-apart-over-efa). */
const anyHint = (r: ResolvedInference) => (usesEfa(r) ? "" : `, or set placement "any"`);

/**
 * Separate-node placement gives every node to one role, so each role needs whole nodes of its own:
 * 12 one-GPU prefill workers on 8-GPU nodes take 2 nodes even though 4 GPUs of the second stay free.
 */
function validateRoleNodes(r: ResolvedInference, at: (k: string) => string): Problem[] {
  if (r.placement !== Placement.SeparateNodes) return [];
  const per = nodesPerRole(r);
  const need = per.prefill + per.decode;
  if (need <= r.pool.nodes) return [];
  const role = (x: ServingRole) => {
    const a = roleArgs(r, x);
    return `${x} ${a.replicas} x ${a.gpusPerWorker} GPU needs ${per[x]} node(s)`;
  };
  return [
    {
      propertyPath: at("gpuPool"),
      reason: `placement "separate-nodes" gives each node to one role: ${role(ServingRole.Prefill)}, ${role(ServingRole.Decode)} of ${r.pool.gpusPerNode} GPUs = ${need} nodes; pool ${show(r.pool.name)} has ${r.pool.nodes}. Add nodes (${need}) or lower replicas (plan.md's balanced split fits the nodes the graph takes)${anyHint(r)}`,
    },
  ];
}

function validateScalars(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const out: Problem[] = [
    ...closedChoice(at("backend"), r.backend, choices(Backend)),
    ...releaseProblems(r.release, at("release")),
    ...closedChoice(at("placement"), r.placement, choices(Placement)),
    ...closedChoice(at("frontend.serviceType"), r.frontend.serviceType, choices(FrontendServiceType)),
    ...closedChoice(at("kvTransport"), r.kvTransportChoice, choices(KvTransportChoice)),
    ...closedChoice(at("kvCacheDtype"), r.kvCacheDtype, choices(KvCacheDtype)),
    ...checkRange(at("maxModelLen"), r.maxModelLen, INFERENCE_LIMITS.maxModelLen),
    ...checkRange(at("modelLoadBudgetSeconds"), r.modelLoadBudgetSeconds, INFERENCE_LIMITS.modelLoadBudgetSeconds),
    ...checkRange(at("frontend.replicas"), r.frontend.replicas, INFERENCE_LIMITS.frontendReplicas),
    ...checkNumberRange(
      at("gpuMemoryUtilization"),
      r.gpuMemoryUtilization,
      INFERENCE_LIMITS.gpuMemoryUtilization,
      "a fraction",
      0.85,
    ),
  ];
  const badModel =
    typeof r.model !== "string" || r.model.trim() === ""
      ? `must name a model, e.g. "meta-llama/Llama-3.1-8B-Instruct"; got ${show(r.model)}`
      : modelIdProblem(r.model);
  if (badModel) out.push({ propertyPath: at("model"), reason: badModel });
  out.push(...revisionProblems(r, at));
  for (const [key, v] of [
    ["namespace", r.namespace],
    ["graphName", r.graphName],
  ] as const) {
    if (!K8S_NAME.test(v))
      out.push({
        propertyPath: at(key),
        reason: `must be a lower-case RFC 1123 name (a-z, 0-9, "-", <= 63 characters); got ${show(v)}`,
      });
  }
  out.push(...namespaceProblems(r, at), ...frontendProblems(r, at));
  out.push(...cacheModeProblems(r, at), ...networkProblems(r, at));
  // Only budgets of a valid range are compared with the estimate.
  if (!out.some((p) => /BudgetSeconds$/.test(p.propertyPath))) out.push(...budgetProblems(r, at));
  if (r.modelCache) {
    out.push(...checkRange(at("modelCache.sizeGiB"), r.modelCache.sizeGiB, INFERENCE_LIMITS.modelCacheSizeGiB));
    if (!r.modelCache.storageClassName)
      out.push({
        propertyPath: at("modelCache.storageClassName"),
        reason: `must name a StorageClass that serves ReadWriteMany (e.g. EFS); got ${show(r.modelCache.storageClassName)}`,
      });
  }
  return out;
}

/**
 * The Frontend's router mode and switches against what the release offers: a mode it lists; the KV router with one
 * Frontend (the flows between KV-router replicas were not read); a switch only where the release names its env var.
 */
function frontendProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  if (!isReleaseId(r.release)) return [];
  const rt = release(r.release).runtime;
  const f = r.frontend;
  const modes = rt.routerModes.modes;
  const out: Problem[] = modes.includes(f.routerMode)
    ? []
    : [
        {
          propertyPath: at("frontend.routerMode"),
          reason: `must be a router mode release ${show(r.release)} offers (${modes.map((m) => show(m)).join(", ")}); got ${show(f.routerMode)}`,
        },
      ];
  if (f.routerMode === RouterMode.Kv && f.replicas > 1)
    out.push({
      propertyPath: at("frontend.replicas"),
      reason: `must be 1 with frontend.routerMode "kv"; got ${f.replicas}. KV routers of several Frontends sync their state with each other, and those flows were not read, so the NetworkPolicies would not admit them. Use one Frontend, or routerMode "round-robin"`,
    });
  for (const [key, off] of [
    ["adminApi", rt.frontendSwitches.adminApiOff],
    ["nvext", rt.frontendSwitches.nvextOff],
  ] as const) {
    const v = f[key];
    if (typeof v !== "boolean")
      out.push({ propertyPath: at(`frontend.${key}`), reason: `must be true or false; got ${show(v)}` });
    else if (v && !off)
      out.push({
        propertyPath: at(`frontend.${key}`),
        reason: `cannot be turned on with release ${show(r.release)}: its runtime has no switch this package read (the surface is off there). Remove it, or use release "dynamo-1.6"`,
      });
  }
  return out;
}

/**
 * A budget below the plan's own estimate: the deploy would be stopped at it (the prefetch at its deadline, the
 * engine by its startup probe) however healthy. Only an explicit budget can be below: a derived one is 2x the estimate.
 */
function budgetProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const e = r.loadEstimate;
  if (!e) return [];
  const fix = derivedBudgets(e);
  const sec = (n: number) => `${n.toLocaleString("en-US")} s`;
  const out: Problem[] = [];
  const a = LOAD_ASSUMPTIONS;
  if (!e.downloadInLoad && e.downloadSeconds > r.modelDownloadBudgetSeconds)
    out.push({
      propertyPath: at("modelDownloadBudgetSeconds"),
      reason: `(${r.modelDownloadBudgetSeconds}) is below the plan's estimate of ${sec(e.downloadSeconds)} to download ${r.model} to a node (at ${a.hfDownloadMBps} MB/s, assumed): the prefetch stops at its budget and the node's workers never start. Fix: set it to at least ${fix.download} (2x the estimate) or remove it to have it derived`,
    });
  const inLoad = e.loadSeconds + (e.downloadInLoad ? e.downloadSeconds : 0);
  if (inLoad > r.modelLoadBudgetSeconds)
    out.push({
      propertyPath: at("modelLoadBudgetSeconds"),
      reason: `(${r.modelLoadBudgetSeconds}) is below the plan's estimate of ${sec(inLoad)} to ${e.downloadInLoad ? "download and load" : "load"} ${r.model} (modelCacheMode ${r.modelCacheMode}; tools/render/plan/load.ts states the bandwidths): the startup probe restarts the engine before it is up. Fix: set it to at least ${fix.load} (2x the estimate) or remove it to have it derived`,
    });
  return out;
}

/** The revision's form, and where it can be honoured: TRT-LLM pins only through the local-nvme prefetch. */
function revisionProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const bad =
    typeof r.modelRevision === "string"
      ? revisionProblem(r.modelRevision)
      : `must be a string; got ${show(r.modelRevision)}`;
  if (bad) return [{ propertyPath: at("modelRevision"), reason: bad }];
  if (
    r.modelRevision !== INFERENCE_DEFAULTS.modelRevision &&
    r.backend === Backend.Trtllm &&
    r.modelCacheMode !== ModelCacheMode.LocalNvme
  ) {
    return [
      {
        propertyPath: at("modelRevision"),
        reason: `(${show(r.modelRevision)}) cannot reach a TensorRT-LLM engine that downloads the model itself (modelCacheMode ${show(r.modelCacheMode)}): dynamo.trtllm's --revision belongs to its diffusion worker only. Use modelCacheMode "local-nvme" (the prefetch downloads that revision and the engine loads it from the node), or the vllm backend`,
      },
    ];
  }
  return [];
}

/** The model cache mode against what it needs: a shared volume for `efs`, a pool NVMe array for `local-nvme`. */
function cacheModeProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const out = [
    ...closedChoice(at("modelCacheMode"), r.modelCacheMode, choices(ModelCacheMode)),
    ...checkRange(
      at("modelDownloadBudgetSeconds"),
      r.modelDownloadBudgetSeconds,
      INFERENCE_LIMITS.modelDownloadBudgetSeconds,
    ),
  ];
  if (r.modelCacheMode === ModelCacheMode.Efs && !r.modelCache) {
    out.push({
      propertyPath: at("modelCache"),
      reason: `is required with modelCacheMode "efs": the shared ReadWriteMany volume (storageClassName, sizeGiB; in stack config, set inference.modelCache.sizeGiB)`,
    });
  }
  if (r.modelCacheMode !== ModelCacheMode.Efs && r.modelCache) {
    out.push({
      propertyPath: at("modelCacheMode"),
      reason: `(${show(r.modelCacheMode)}) does not use the shared cache volume (modelCache); use mode "efs" or drop the volume`,
    });
  }
  if (r.modelCacheMode === ModelCacheMode.LocalNvme) {
    const weights = typeof r.model === "string" ? modelFacts(r.model, r.modelShape)?.weightBytes : undefined;
    if (r.pool?.localNvme && weights !== undefined && weights > 0.9 * r.pool.localNvme.sizeGB * 1e9) {
      out.push({
        propertyPath: at("modelCacheMode"),
        reason: `${r.model}'s ${(weights / 1e9).toFixed(0)} GB of weights do not fit 90% of the ${r.pool.localNvme.sizeGB} GB NVMe array of a ${r.pool.instanceType} node (kubelet and container images share it); use "efs" or a type with more instance store`,
      });
    }
    if (r.pool && !r.pool.localNvme) {
      out.push({
        propertyPath: at("modelCacheMode"),
        reason: `"local-nvme" needs a pool whose nodes put their instance-store NVMe in a RAID0 array; pool ${show(r.pool.name)} (${r.pool.instanceType}) has none. Turn on the pool's localNvme, or use "efs" or "none"`,
      });
    }
  }
  return out;
}

/**
 * Every problem with a resolved inference spec. `base` prefixes each path (e.g. `inference` when
 * the args come from stack config). `hasHfToken` says whether a token was passed.
 */
/**
 * DRA claims need an operator that carries `resourceClaims` into the pods and adds no GPU count of its own: read for the
 * v1beta1 graph of Dynamo 1.6 (tests/contracts/facts/dynamo-operator-dra.json); the v1alpha1 operator of release seed
 * (1.0.1) was not read, so the pairing is refused there rather than assumed.
 */
function deviceAllocationProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  if (!r.pool || r.pool.deviceAllocation !== DeviceAllocation.Dra || !isReleaseId(r.release)) return [];
  if (release(r.release).graph.apiVersion === GraphApiVersion.V1beta1) return [];
  return [
    {
      propertyPath: at("gpuPool.deviceAllocation"),
      reason: `"dra" needs a release whose operator is known to carry DRA claims into the workers (the v1beta1 graph of dynamo-1.6); release ${show(r.release)}'s operator was not read for it: use release dynamo-1.6, or deviceAllocation "device-plugin"`,
    },
  ];
}

export function validate(r: ResolvedInference, hasHfToken: boolean, base = ""): Problem[] {
  const at = (k: string) => (base ? `${base}.${k}` : k);
  const roleProblems = r.pool ? SERVING_ROLES.flatMap((role) => validateRole(r, role, at)) : [];
  const out = [
    ...validateScalars(r, at),
    ...validatePool(r, at, roleProblems.length === 0),
    ...validateWorkload(r, at),
  ];
  if (r.pool) {
    out.push(...roleProblems);
    if (roleProblems.length === 0) out.push(...validateHugepages(r, at));
    // The fit numbers need valid inputs; a problem elsewhere (a namespace) must not hide a model that cannot run.
    const fitReads = FIT_INPUTS.map(at);
    const blocked = out.some((p) => fitReads.some((k) => p.propertyPath === k || p.propertyPath.startsWith(`${k}.`)));
    if (!blocked) out.push(...validateModelFit(r, at));
  }
  if (r.createHfSecret && !hasHfToken) {
    out.push({
      propertyPath: at("hfToken"),
      reason:
        "is required unless hfTokenSecretName names an existing Secret with keys HF_TOKEN and HUGGING_FACE_HUB_TOKEN; pass it as a Pulumi secret (config --secret)",
    });
  }
  if (!r.createHfSecret && hasHfToken) {
    out.push({
      propertyPath: at("hfTokenSecretName"),
      reason: `(${show(r.hfSecretName)}) and hfToken are both set; pass only one: the token (the component creates the Secret) or the name of an existing Secret`,
    });
  }
  out.push(...deviceAllocationProblems(r, at));
  if (r.image !== undefined) out.push(...validateImage(r.image, at("image")));
  // The prefetch DaemonSet runs only in local-nvme mode; a moving tag there would change what downloads the weights.
  if (r.modelCacheMode === ModelCacheMode.LocalNvme) out.push(...validateImage(r.prefetchImage, at("prefetchImage")));
  if (typeof r.firstTokenCheck.enabled !== "boolean")
    out.push({
      propertyPath: at("firstTokenCheck.enabled"),
      reason: `must be true or false; got ${show(r.firstTokenCheck.enabled)}`,
    });
  else if (r.firstTokenCheck.enabled) out.push(...validateImage(r.firstTokenCheck.image, at("firstTokenCheck.image")));
  return out;
}

/*
 * What `inference.model` and `inference.modelRevision` may be: one rule for the render's validation and the
 * in-cluster prefetch (`./prefetch/prefetch.py` carries the same expressions; tests/unit/model-id.spec.ts checks
 * they are character for character the same and runs both over the same cases). A model id the prefetch would
 * refuse must fail the render, not every worker at deploy time. Pure.
 *
 * The id is Hugging Face's `namespace/repo_name` (huggingface_hub `validate_repo_id`: letters, digits, "_", "-",
 * "."; starts and ends with a letter, digit or "_"; at most 96 characters; no "--" or ".."), with the namespace
 * required: the prefetch's listing URL and its cache directory (`org--name`, hence no "--") need both parts. Not a
 * path: the engine gets a local path only from the model cache, never from the user.
 */
/** A Hugging Face model id, `org/name`. */
export const MODEL_ID_RULE =
  /^(?!.*--)(?!.*\.\.)(?=[^/]{1,96}\/[^/]{1,96}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\/[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

/** A branch, tag or commit the prefetch can use as one directory name (no "/"). */
export const REVISION_RULE = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$/;

/** Why `id` is not a model id the prefetch and the engines accept, or undefined when it is. */
export function modelIdProblem(id: string): string | undefined {
  if (MODEL_ID_RULE.test(id)) return undefined;
  const parts = id.split("/");
  const hint =
    id.startsWith("/") || id.startsWith(".")
      ? "a local path is not a model id: the model cache (inference.modelCacheMode) puts the weights on the nodes"
      : parts.length > 2
        ? `an id has exactly one "/" (did you mean ${JSON.stringify(parts.slice(-2).join("/"))}?)`
        : parts.length < 2
          ? 'an id names its organization, "org/name" (e.g. "meta-llama/Llama-3.1-8B-Instruct")'
          : 'each part: letters, digits, "_", "-", "." (starting and ending with a letter, digit or "_", at most 96), no "--" or ".."';
  return `must be a Hugging Face model id "org/name"; got ${JSON.stringify(id)}: ${hint}`;
}

/** Why `rev` is not a usable revision, or undefined when it is. */
export function revisionProblem(rev: string): string | undefined {
  if (REVISION_RULE.test(rev)) return undefined;
  return `must be a 40-hex commit (pins the weights) or a branch or tag without "/" (e.g. "main"); got ${JSON.stringify(rev)}`;
}

/** Namespaces Kubernetes itself creates and runs its system pods in. */
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"] as const;

/**
 * The graph's namespace must be its own: the component creates it (and deletes it with the graph) unless
 * `createNamespace: false`, and in every case fences every pod in it with a default-deny NetworkPolicy, so a shared
 * namespace (Kubernetes' own, the platform's, the scrapers') would lose its objects on destroy or its traffic at once.
 * Refused rather than used unmanaged, because of that fence.
 */
function namespaceProblems(r: ResolvedInference, at: (k: string) => string): Problem[] {
  const ns = r.namespace;
  const taken: [boolean, string][] = [
    [(SYSTEM_NAMESPACES as readonly string[]).includes(ns), "a namespace Kubernetes itself runs"],
    [ns === r.platformNamespace, "the Dynamo platform's namespace (platformNamespace)"],
    [
      r.networkPolicy.metricsNamespaces.includes(ns),
      "a metrics namespace (networkPolicy.metricsNamespaces: Prometheus runs there)",
    ],
  ];
  const hit = taken.find(([yes]) => yes);
  if (!hit) return [];
  return [
    {
      propertyPath: at("namespace"),
      reason: `${show(ns)} is ${hit[1]}; the graph needs a namespace of its own (it creates and deletes it unless createNamespace is false, and fences every pod in it with a default-deny NetworkPolicy). Choose another, e.g. "dynamo"`,
    },
  ];
}
