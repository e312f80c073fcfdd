/**
 * Where a component's argument paths sit in the stack config: a problem a component reports at
 * `gpuPools.gpu.nodes` or `prefill.replicas` is shown at the key the user wrote
 * (`cluster.gpuNodes.count`, `inference.prefill.replicas`). Used by the config check and by the render
 * when a component throws. Pure.
 */
import type { Problem } from "../components/_shared/problems";
import { GPU_POOL_NAME } from "./config-fields";

/** Rewrites component argument paths to the config keys a user writes (most specific first). */
const PATH_MAP: readonly (readonly [from: string, to: string])[] = [
  ["region", "aws:region"],
  ["inference.hfToken", "hfToken"],
  ["inference.gpuPool.cpuArch", "cluster.gpuNodes.instanceType"],
  ["inference.gpuPool", "cluster.gpuNodes"],
  ["inference.image", "image.ref"],
  ["inference.modelCache.sizeGiB", "inference.modelCacheGiB"],
  [`gpuPools.${GPU_POOL_NAME}.nodes`, "cluster.gpuNodes.count"],
  [`gpuPools.${GPU_POOL_NAME}.capacityReservationId`, "cluster.gpuNodes.capacity.reservationId"],
  [`gpuPools.${GPU_POOL_NAME}.capacity`, "cluster.gpuNodes.capacity.type"],
  [`gpuPools.${GPU_POOL_NAME}.availabilityZone`, "cluster.availabilityZone"],
  [`gpuPools.${GPU_POOL_NAME}.efa`, "cluster.gpuNodes.instanceType"],
  [`gpuPools.${GPU_POOL_NAME}`, "cluster.gpuNodes"],
];

/** A component's problem, at the config key the user wrote. `clusterArg` marks `EfaCluster` paths. */
export function toConfigPath(p: Problem, clusterArg = false): Problem {
  for (const [from, to] of PATH_MAP) {
    if (p.propertyPath === from || p.propertyPath.startsWith(`${from}.`) || p.propertyPath.startsWith(`${from}[`)) {
      return { ...p, propertyPath: to + p.propertyPath.slice(from.length) };
    }
  }
  return clusterArg ? { ...p, propertyPath: `cluster.${p.propertyPath}` } : p;
}

/** `p` under `section.` unless its path already starts there. */
const within = (section: string, p: Problem): Problem =>
  p.propertyPath.startsWith(`${section}.`) ? p : { ...p, propertyPath: `${section}.${p.propertyPath}` };

/** Where each component's argument paths sit in the stack config, by the component's name. */
const COMPONENT_SECTIONS: Readonly<Record<string, (p: Problem) => Problem>> = {
  EfaCluster: (p) => toConfigPath(p, true),
  DynamoImage: (p) => toConfigPath(within("image", p)),
  DisaggInference: (p) => toConfigPath(within("inference", p)),
  DynamoObservability: (p) => within("observability", p),
};

/**
 * A component's problems (from the error it threw: `subjectOf` in components/_shared/pulumi-errors.ts)
 * at the config keys the user wrote; an unknown component's paths only go through `toConfigPath`.
 */
export function componentProblemsAtConfig(component: string | undefined, problems: readonly Problem[]): Problem[] {
  const place = (component !== undefined && COMPONENT_SECTIONS[component]) || ((p: Problem) => toConfigPath(p));
  return problems.map(place);
}
