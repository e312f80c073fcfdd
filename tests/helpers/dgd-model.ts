/**
 * The strict runtime check of a rendered DynamoGraphDeployment: unknown fields, wrong types and out-of-range values
 * are errors, so a typo in a field name (which the operator would silently ignore) fails the test. The types are
 * the package's (components/inference/dgd.ts); this check stays with the tests because it validates the
 * embedded Kubernetes types (PodSpec, Container, Probe, EnvVar) in full with `kubernetes-models`, a devDependency.
 */
import { Container, EnvVar, PodSpec, Probe } from "kubernetes-models/v1";
import { DGD_API_VERSION, DGD_KIND } from "../../components/inference/dgd";

export type { DgdResourceItem, DgdService, DynamoGraphDeployment } from "../../components/inference/dgd";

/** Kubernetes quantity (`1`, `250m`, `229Gi`, `1282Mi`). */
const QUANTITY = /^[+-]?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function keys(path: string, v: unknown, allowed: readonly string[], out: string[]): v is Obj {
  if (!isObj(v)) {
    out.push(`${path}: must be an object`);
    return false;
  }
  for (const k of Object.keys(v))
    if (!allowed.includes(k)) out.push(`${path}.${k}: unknown field (allowed: ${allowed.join(", ")})`);
  return true;
}

function stringMap(path: string, v: unknown, out: string[], quantity = false): void {
  if (!isObj(v)) return void out.push(`${path}: must be a map of strings`);
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") out.push(`${path}.${k}: must be a string`);
    else if (quantity && !QUANTITY.test(x)) out.push(`${path}.${k}: ${JSON.stringify(x)} is not a Kubernetes quantity`);
  }
}

function k8s(path: string, make: () => { validate(): void }, out: string[]): void {
  try {
    make().validate();
  } catch (e) {
    out.push(`${path}: ${(e as Error).message}`);
  }
}

function resourceItem(path: string, v: unknown, out: string[]): void {
  if (!keys(path, v, ["cpu", "memory", "gpu", "gpuType", "custom"], out)) return;
  for (const k of ["cpu", "memory", "gpu"]) if (v[k] !== undefined) stringMap(path, { [k]: v[k] }, out, true);
  if (v.gpuType !== undefined && typeof v.gpuType !== "string") out.push(`${path}.gpuType: must be a string`);
  if (v.custom !== undefined) stringMap(`${path}.custom`, v.custom, out, true);
}

const SERVICE_FIELDS = [
  "componentType",
  "subComponentType",
  "replicas",
  "resources",
  "envs",
  "envFromSecret",
  "volumeMounts",
  "sharedMemory",
  "extraPodSpec",
  "livenessProbe",
  "readinessProbe",
  "multinode",
  "annotations",
  "labels",
  "extraPodMetadata",
];

function service(path: string, s: unknown, out: string[]): void {
  if (!keys(path, s, SERVICE_FIELDS, out)) return;
  if (!["frontend", "worker", "planner"].includes(String(s.componentType)))
    out.push(`${path}.componentType: must be frontend, worker or planner`);
  if (s.subComponentType !== undefined && !["prefill", "decode"].includes(String(s.subComponentType)))
    out.push(`${path}.subComponentType: must be prefill or decode`);
  if (s.replicas !== undefined && !(Number.isInteger(s.replicas) && (s.replicas as number) >= 0))
    out.push(`${path}.replicas: must be a whole number >= 0`);
  if (s.resources !== undefined && keys(`${path}.resources`, s.resources, ["requests", "limits"], out)) {
    for (const k of ["requests", "limits"])
      if (s.resources[k] !== undefined) resourceItem(`${path}.resources.${k}`, s.resources[k], out);
  }
  if (s.envs !== undefined) {
    if (!Array.isArray(s.envs)) out.push(`${path}.envs: must be a list`);
    else s.envs.forEach((e, i) => k8s(`${path}.envs[${i}]`, () => new EnvVar(e as never), out));
  }
  if (s.envFromSecret !== undefined && typeof s.envFromSecret !== "string")
    out.push(`${path}.envFromSecret: must be a Secret name`);
  if (s.volumeMounts !== undefined) {
    (s.volumeMounts as unknown[]).forEach((m, i) => {
      if (
        keys(`${path}.volumeMounts[${i}]`, m, ["name", "mountPoint", "useAsCompilationCache"], out) &&
        (typeof m.name !== "string" || typeof m.mountPoint !== "string")
      ) {
        out.push(`${path}.volumeMounts[${i}]: name and mountPoint must be strings`);
      }
    });
  }
  if (
    s.sharedMemory !== undefined &&
    keys(`${path}.sharedMemory`, s.sharedMemory, ["disabled", "size"], out) &&
    s.sharedMemory.size !== undefined
  ) {
    stringMap(`${path}.sharedMemory`, { size: s.sharedMemory.size }, out, true);
  }
  if (
    s.multinode !== undefined &&
    keys(`${path}.multinode`, s.multinode, ["nodeCount"], out) &&
    !(Number.isInteger(s.multinode.nodeCount) && (s.multinode.nodeCount as number) >= 2)
  ) {
    out.push(`${path}.multinode.nodeCount: must be a whole number >= 2`);
  }
  for (const m of ["annotations", "labels"]) if (s[m] !== undefined) stringMap(`${path}.${m}`, s[m], out);
  servicePod(path, s, out);
}

/** The fields that land on the pods the operator creates: probes, extra pod metadata, extraPodSpec. */
function servicePod(path: string, s: Obj, out: string[]): void {
  for (const p of ["livenessProbe", "readinessProbe"])
    if (s[p] !== undefined) k8s(`${path}.${p}`, () => new Probe(s[p] as never), out);
  // extraPodMetadata {annotations, labels}: in the CRD (facts/dgd-crd.json), merged onto the pods the operator creates.
  if (
    s.extraPodMetadata !== undefined &&
    keys(`${path}.extraPodMetadata`, s.extraPodMetadata, ["annotations", "labels"], out)
  ) {
    for (const m of ["annotations", "labels"])
      if (s.extraPodMetadata[m] !== undefined) stringMap(`${path}.extraPodMetadata.${m}`, s.extraPodMetadata[m], out);
  }
  if (s.extraPodSpec !== undefined && isObj(s.extraPodSpec)) {
    const { mainContainer, ...podSpec } = s.extraPodSpec;
    // The operator supplies the container name and merges mainContainer over its defaults.
    const main = { name: "main", ...(isObj(mainContainer) ? mainContainer : {}) };
    k8s(`${path}.extraPodSpec.mainContainer`, () => new Container(main as never), out);
    k8s(`${path}.extraPodSpec`, () => new PodSpec({ ...podSpec, containers: [main] } as never), out);
  }
}

/** Every problem with a rendered DGD (empty when it conforms to the model). */
export function dgdProblems(obj: unknown): string[] {
  const out: string[] = [];
  if (!keys("", obj, ["apiVersion", "kind", "metadata", "spec"], out)) return out;
  if (obj.apiVersion !== DGD_API_VERSION) out.push(`apiVersion: must be ${DGD_API_VERSION}`);
  if (obj.kind !== DGD_KIND) out.push(`kind: must be ${DGD_KIND}`);
  if (keys("metadata", obj.metadata, ["name", "namespace", "annotations", "labels"], out)) {
    if (typeof obj.metadata.name !== "string" || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(obj.metadata.name))
      out.push("metadata.name: must be an RFC 1123 name");
    for (const m of ["annotations", "labels"])
      if (obj.metadata[m] !== undefined) stringMap(`metadata.${m}`, obj.metadata[m], out);
  }
  if (!keys("spec", obj.spec, ["backendFramework", "envs", "pvcs", "services"], out)) return out;
  const spec = obj.spec;
  if (spec.backendFramework !== undefined && !["vllm", "sglang", "trtllm"].includes(String(spec.backendFramework)))
    out.push("spec.backendFramework: must be vllm, sglang or trtllm");
  if (!isObj(spec.services) || Object.keys(spec.services).length === 0)
    out.push("spec.services: must be a non-empty map");
  else {
    if (Object.keys(spec.services).length > 25) out.push("spec.services: at most 25 services");
    for (const [k, s] of Object.entries(spec.services)) service(`spec.services.${k}`, s, out);
  }
  if (spec.pvcs !== undefined) {
    (spec.pvcs as unknown[]).forEach((p, i) =>
      keys(`spec.pvcs[${i}]`, p, ["name", "create", "storageClass", "size", "volumeAccessMode"], out),
    );
  }
  return out;
}
