/**
 * Happy-path inputs for the policy tests: a plan of the p5en 8+8 variant that satisfies every policy
 * (the shape `DisaggInference` / `EfaCluster` / `DynamoImage` render), built as plain data so each
 * test can mutate one field. Pure.
 */
import { ResourceType } from "../../policy/rules/_resources";
import { clone, planResource, urnOf, PlanResource } from "./policy-harness";
import { happyGraph, TestGraph } from "./policy-graph-fixtures";

/** Resource type tokens: the policies' own table (one source), plus the short alias tests use. */
export const T = { ...ResourceType, Repository: ResourceType.EcrRepository } as const;

/** The happy launch template's type. */
export type TestLaunchTemplate = ReturnType<typeof happyLaunchTemplate>;

/** Current AWS EFA layout for `cards` EFA cards: ENA primary, then `efa-only` (docs/ARCHITECTURE.md#efa-on-eks). */
function efaInterfaceSlots(cards: number) {
  const efa = Array.from({ length: cards }, (_, c) => ({
    networkCardIndex: c,
    deviceIndex: c === 0 ? 1 : 0,
    interfaceType: "efa-only",
  }));
  return [{ networkCardIndex: 0, deviceIndex: 0, interfaceType: "interface" }, ...efa];
}

/** The happy p5en launch template: ENA primary + 16 efa-only interfaces on the EFA security group. */
export function happyLaunchTemplate() {
  return {
    instanceType: "p5en.48xlarge",
    metadataOptions: { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 1 },
    tagSpecifications: ["instance", "volume", "network-interface"].map((resourceType) => ({
      resourceType,
      tags: { Name: "c-gpu-gpu", "dynamo-efa/pool": "gpu" },
    })),
    blockDeviceMappings: [{ deviceName: "/dev/xvda", ebs: { volumeSize: 500, volumeType: "gp3", encrypted: "true" } }],
    networkInterfaces: efaInterfaceSlots(16).map((s) => ({
      ...s,
      securityGroups: ["c-efa-id"],
      deleteOnTermination: "true",
    })),
  };
}

/** The happy image's props: a content-derived tag and sm_90 arch lists for CUDA 12.9 (any build arg may be edited). */
export function happyImage() {
  const buildArgs: Record<string, string> = {
    CUDA_VERSION: "12.9",
    TORCH_CUDA_ARCH_LIST: "9.0",
    NVCC_GENCODE: "-gencode=arch=compute_90,code=sm_90",
    FLASHINFER_CUDA_ARCH_LIST: "9.0",
  };
  return { tags: ["123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo-combined-efa:3f2a9c1d"], push: true, buildArgs };
}

/** The happy image repository's props: scans on push, immutable tags. */
export function happyRepository() {
  return {
    name: "dynamo-combined-efa",
    imageScanningConfiguration: { scanOnPush: true },
    imageTagMutability: "IMMUTABLE",
  };
}

/** The happy GPU pool: the EFA security group with its self-referencing rules, launch template and node group. */
function happyGpuPool(): PlanResource[] {
  const sg = planResource(T.SecurityGroup, { vpcId: "vpc-1", description: "EFA", id: "c-efa-id" }, { name: "c-efa" });
  const rule = (dir: "ingress" | "egress") =>
    planResource(
      T.SgRule,
      { securityGroupId: "c-efa-id", type: dir, protocol: "-1", fromPort: 0, toPort: 0, self: true },
      { name: `c-efa-${dir}`, propertyDependencies: { securityGroupId: [sg.urn] } },
    );
  const lt = planResource(T.LaunchTemplate, happyLaunchTemplate(), {
    name: "c-gpu-lt",
    propertyDependencies: { networkInterfaces: [sg.urn] },
  });
  const ng = planResource(
    T.NodeGroup,
    {
      clusterName: "c",
      subnetIds: ["subnet-a"],
      capacityType: "ON_DEMAND",
      launchTemplate: { id: "c-gpu-lt-id", version: "1" },
      scalingConfig: { desiredSize: 2, minSize: 2, maxSize: 2 },
    },
    { name: "c-gpu-ng", propertyDependencies: { launchTemplate: [lt.urn] } },
  );
  return [sg, rule("ingress"), rule("egress"), lt, ng];
}

/** The happy image resources: its retained, scanning, immutable repository, the build cache and the image. */
function happyImageResources(): PlanResource[] {
  const repo = planResource(T.Repository, happyRepository(), { name: "img-repo", opts: { retainOnDelete: true } });
  const cache = planResource(
    T.Repository,
    {
      name: "dynamo-combined-efa-build-cache",
      imageScanningConfiguration: { scanOnPush: false },
      imageTagMutability: "MUTABLE",
    },
    { name: "img-build-cache" },
  );
  const image = planResource(T.Image, happyImage(), { name: "img", dependencies: [repo.urn] });
  return [repo, cache, image];
}

/** The whole happy plan: cluster, GPU pool, EFA security group, image, registry, secret, cache and graph. */
export function happyStack(): PlanResource[] {
  const pool = happyGpuPool();
  const [repo, cache, image] = happyImageResources();
  const cluster = planResource(
    T.EksCluster,
    {
      encryptionConfigKeyArn: "arn:aws:kms:us-east-2:123456789012:key/k",
      endpointPrivateAccess: true,
      endpointPublicAccess: true,
      publicAccessCidrs: ["203.0.113.0/24"],
    },
    { name: "c-eks" },
  );
  const secret = planResource(
    T.Secret,
    {
      metadata: { name: "llama-hf-token", namespace: "dynamo" },
      stringData: { HF_TOKEN: "[secret]", HUGGING_FACE_HUB_TOKEN: "[secret]" },
    },
    { name: "inf-hf-token", opts: { additionalSecretOutputs: ["data", "stringData"] } },
  );
  const pvc = planResource(
    T.Pvc,
    { metadata: { name: "llama-model-cache" }, spec: { accessModes: ["ReadWriteMany"] } },
    { name: "inf-model-cache", opts: { retainOnDelete: true } },
  );
  const dgd = planResource(T.Dgd, happyGraph(), { name: "inf-graph", dependencies: [image.urn, secret.urn, pvc.urn] });
  return [...pool, repo, cache, image, cluster, secret, pvc, dgd];
}

/** The resource named `name` of a plan (a test error when there is none). */
export function named(plan: readonly PlanResource[], name: string): PlanResource {
  const r = plan.find((x) => x.name === name);
  if (!r) throw new Error(`no resource ${name} in the plan`);
  return r;
}

/** The happy plan's graph props, typed as the fixture that made them (the same JSON, edited in place). */
export const graphIn = (plan: readonly PlanResource[]): TestGraph => named(plan, "inf-graph").props as TestGraph;
/** The happy plan's image props, typed as the fixture that made them. */
export const imageIn = (plan: readonly PlanResource[]) => named(plan, "img").props as ReturnType<typeof happyImage>;
/** The happy plan's launch template props, typed as the fixture that made them. */
export const launchTemplateIn = (plan: readonly PlanResource[]) =>
  named(plan, "c-gpu-lt").props as ReturnType<typeof happyLaunchTemplate>;

/**
 * Replaces the resource named `name` in a plan (by URN) with `f(copy)`; `P` types the copy's props as
 * the fixture that made them (e.g. `TestLaunchTemplate`), an open record by default.
 */
export function mutate<P extends object = Record<string, unknown>>(
  plan: readonly PlanResource[],
  name: string,
  f: (props: P, r: PlanResource) => PlanResource | void,
): PlanResource[] {
  return plan.map((r) => {
    if (r.name !== name) return r;
    const copy = clone(r);
    return f(copy.props as P, copy) ?? copy;
  });
}

export { urnOf };
