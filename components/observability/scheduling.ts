/**
 * The scheduling rule of monitoring pods, as a pure check over Helm values or pod specs: no
 * toleration of the GPU taint and no GPU request. A toleration with no key and `Exists` tolerates
 * every taint, the GPU taint included (Kubernetes taint/toleration matching).
 */
import { GPU_TAINT } from "../catalog/pool";

/** The extended resource name of NVIDIA GPUs. */
export const GPU_RESOURCE = "nvidia.com/gpu";

function toleratesGpu(t: unknown): boolean {
  if (!t || typeof t !== "object") return false;
  const { key, operator, effect, value } = t as Record<string, unknown>;
  const effectOk = effect === undefined || effect === "" || effect === GPU_TAINT.effect;
  if (!effectOk) return false;
  if (key === undefined || key === "") return operator === "Exists";
  if (key !== GPU_TAINT.key) return false;
  return operator === "Exists" || value === GPU_TAINT.value;
}

/** Paths under `v` where a toleration admits the GPU taint or a resource asks for a GPU. */
export function gpuAccessPaths(v: unknown, path = ""): string[] {
  if (Array.isArray(v)) {
    const here = path.endsWith("tolerations") ? v.flatMap((t, i) => (toleratesGpu(t) ? [`${path}[${i}]`] : [])) : [];
    return [...here, ...v.flatMap((x, i) => gpuAccessPaths(x, `${path}[${i}]`))];
  }
  if (!v || typeof v !== "object") return [];
  return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => {
    const p = path ? `${path}.${k}` : k;
    return k === GPU_RESOURCE && /(limits|requests)$/.test(path) ? [p] : gpuAccessPaths(x, p);
  });
}
