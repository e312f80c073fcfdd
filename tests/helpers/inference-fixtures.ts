/** Shared inputs for the inference tests: pools and resolved specs of the two reference variants. */
import { strict as assert } from "assert";
import { gpuPoolFacts, GpuPoolFacts, instance } from "../../components/catalog";
import { Backend, InferenceSettings, resolveArgs, ResolvedInference, ServingRole } from "../../components/inference";
import { renderWorker } from "../../components/inference/graph";
import { type DgdContainer, type DgdService, type EnvVar, type PodAffinityTerm } from "../../components/inference/dgd";

/** A digest-pinned image ref. */
export const IMAGE = `123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa@sha256:${"ab".repeat(32)}`;
export const MODEL = "meta-llama/Llama-3.1-8B-Instruct";

/** A pool of `nodes` x `type` with EFA on. */
export function pool(
  type = "p5en.48xlarge",
  nodes = 2,
  efaEnabled = true,
  extra: Partial<GpuPoolFacts> = {},
): GpuPoolFacts {
  return {
    ...gpuPoolFacts(instance(type), { name: "gpu", nodes, efaEnabled, availabilityZone: "us-east-2a" }),
    ...extra,
  };
}

/** The two reference variants: one GPU per worker on one node, and 8 + 8 on two nodes. */
export const VARIANTS = {
  /** 1 prefill + 1 decode worker of 1 GPU, each on its own p5en.48xlarge (the field's proven 1-GPU layout). */
  "p5en-1gpu": (): InferenceSettings => ({
    model: MODEL,
    gpuPool: pool("p5en.48xlarge", 2),
    prefill: { replicas: 1, gpusPerWorker: 1 },
    decode: { replicas: 1, gpusPerWorker: 1 },
  }),
  /** 8 prefill + 8 decode workers of 1 GPU on 2 x p5en.48xlarge. */
  "p5en-8x1gpu": (): InferenceSettings => ({
    model: MODEL,
    gpuPool: pool("p5en.48xlarge", 2),
    prefill: { replicas: 8, gpusPerWorker: 1 },
    decode: { replicas: 8, gpusPerWorker: 1 },
  }),
} as const;
export type Variant = keyof typeof VARIANTS;

/** A resolved spec of a variant and backend, with optional overrides. */
export function resolved(
  variant: Variant,
  backend: Backend = "vllm",
  over: Partial<InferenceSettings> = {},
  image: string | undefined = IMAGE,
): ResolvedInference {
  return resolveArgs("llama", { ...VARIANTS[variant](), backend, ...over }, image);
}

/** A rendered worker service of a variant and backend. */
export function worker(backend: Backend, variant: Variant, role: ServingRole): DgdService {
  return renderWorker(resolved(variant, backend), role, IMAGE);
}

/** A service's env as name -> literal value, or its `valueFrom` source. */
export function envOf(s: DgdService): Record<string, EnvVar["value"] | EnvVar["valueFrom"]> {
  return Object.fromEntries((s.envs ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
}

/** A service's main container (fails the test when it has none). */
export function mainOf(s: DgdService): DgdContainer {
  const m = s.extraPodSpec?.mainContainer;
  assert.ok(m, "service has no extraPodSpec.mainContainer");
  return m;
}

/** The value after `flag` on the main container's args. */
export function argValue(s: DgdService, flag: string): string {
  const a = mainOf(s).args ?? [];
  assert.ok(a.includes(flag), `no ${flag} in args`);
  return a[a.indexOf(flag) + 1];
}

/**
 * The first term of a service's pod affinity (preferred: it packs a role) or anti-affinity (required: it keeps
 * the roles apart); fails the test when there is none.
 */
export function affinityTerm(s: DgdService, kind: "podAffinity" | "podAntiAffinity"): PodAffinityTerm {
  const a = s.extraPodSpec?.affinity;
  const t =
    kind === "podAffinity"
      ? a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution[0]?.podAffinityTerm
      : a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution[0];
  assert.ok(t, `service has no ${kind === "podAffinity" ? "preferred" : "required"} ${kind} term`);
  return t;
}

/** A model the catalog does not know, stated by its shape (Llama-3.1-8B's numbers under another id). */
export const STATED_MODEL = {
  model: "example/private-model",
  modelShape: {
    paramsB: 8,
    weightDtype: "bf16",
    layers: 32,
    attentionHeads: 32,
    kvHeads: 8,
    headDim: 128,
    maxContext: 131072,
  },
} as const satisfies Partial<InferenceSettings>;
