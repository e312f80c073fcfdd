/**
 * The one mock universe of the project: what a real `pulumi up` would hand back for each resource and invoke, as
 * deterministic, realistic placeholders (AWS-shaped ids and ARNs, a kubeconfig, an image digest derived from the
 * build inputs). The offline render runs the program under it, and the component tests capture their components
 * under it (`./capture.ts`). Every value is a pure function of the resource's type, name, inputs and region, so two
 * renders of the same config are byte-identical, and the manifests name unnamed objects the way the provider would.
 *
 * The region is the default AWS provider's (the render passes the stack's `aws:region`, a test its own); a resource
 * or invoke under an explicit `aws.Provider` gets that provider's `region`, as it would against AWS.
 *
 * Unknown invokes throw: the components derive facts from the catalog, never from the cloud, so an invoke outside
 * `KNOWN_INVOKES` is a bug worth failing on.
 */
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";
import { PLACEHOLDER_COMMIT } from "../../../components/inference/revision";
import { SECRET } from "../../_shared/stackfile";
import { PLACEHOLDER_DIGEST } from "../../../components/image/image-digest";

/** The account id every placeholder ARN uses (AWS's documentation account). */
export const PLACEHOLDER_ACCOUNT = "123456789012";

/** Deterministic lower-case hex of any JSON-able value, `len` characters (max 64). */
export function hexOf(value: unknown, len = 64): string {
  return createHash("sha256").update(stableJson(value)).digest("hex").slice(0, len);
}

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** An EC2-style id: `<prefix>-` + 17 hex characters. */
export function ec2Id(prefix: string, type: string, name: string): string {
  return `${prefix}-0${hexOf([type, name], 16)}`;
}

/** The physical name a provider would auto-generate: logical name + 7 hex characters. */
export function autoName(type: string, name: string): string {
  return `${name}-${hexOf([type, name], 7)}`;
}

/**
 * The kubeconfig `eks.Cluster` outputs (pulumi-eks `generateKubeconfig`): it authenticates with `aws eks get-token`,
 * asks for the v1beta1 client API and says so in KUBERNETES_EXEC_INFO. tests/contracts/client-tools.spec.ts holds
 * it to tests/contracts/facts/client-tools.json; the README's AWS CLI minimum follows from it.
 */
export function placeholderKubeconfig(clusterName: string, endpoint: string, region: string): Record<string, unknown> {
  const apiVersion = "client.authentication.k8s.io/v1beta1";
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "kubernetes",
        cluster: {
          server: endpoint,
          "certificate-authority-data": Buffer.from(`placeholder-ca:${clusterName}`).toString("base64"),
        },
      },
    ],
    contexts: [{ name: "aws", context: { cluster: "kubernetes", user: "aws" } }],
    "current-context": "aws",
    users: [
      {
        name: "aws",
        user: {
          exec: {
            apiVersion,
            command: "aws",
            args: ["--region", region, "eks", "get-token", "--cluster-name", clusterName, "--output", "json"],
            env: [{ name: "KUBERNETES_EXEC_INFO", value: JSON.stringify({ apiVersion }) }],
          },
        },
      },
    ],
  };
}

/** A placeholder ARN in the placeholder account (`global`: IAM-style, no region). */
export const arn = (region: string, service: string, resource: string, global = false): string =>
  `arn:aws:${service}:${global ? "" : region}:${PLACEHOLDER_ACCOUNT}:${resource}`;

/** `aws:ec2/launchTemplate:LaunchTemplate` -> `{ service: "ec2", kind: "launch-template" }`. */
function awsParts(type: string): { service: string; kind: string } {
  const [, mod = "", cls = ""] = type.split(":");
  const service = mod.split("/")[0];
  const kind = cls.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  return { service, kind };
}

type Outputs = Record<string, unknown>;
/** A resource's or an invoke's inputs as the mock monitor hands them over: plain values of no fixed shape. */
type Inputs = Readonly<Record<string, unknown>>;

/** The physical name the inputs set (`name`), else `fallback` (what the provider would auto-generate). */
const nameOr = (inputs: Inputs, fallback: string): string => (typeof inputs.name === "string" ? inputs.name : fallback);
/** `v` when it is an object (`metadata`), else an empty one. */
const record = (v: unknown): Inputs => (v && typeof v === "object" && !Array.isArray(v) ? (v as Inputs) : {});

function zonesOf(inputs: Inputs): string[] {
  const azs = inputs.availabilityZoneNames as string[] | undefined;
  return azs && azs.length > 0
    ? azs
    : Array.from({ length: Number(inputs.numberOfAvailabilityZones ?? 3) }, (_, i) => `az${i}`);
}
type OutputFn = (name: string, inputs: Inputs, region: string) => Outputs;

function eksCluster(name: string, inputs: Inputs, region: string): Outputs {
  const clusterName = nameOr(inputs, autoName("eks", name));
  const id = hexOf(["oidc", name], 32).toUpperCase();
  const endpoint = `https://${id}.gr7.${region}.eks.amazonaws.com`;
  const kubeconfig = placeholderKubeconfig(clusterName, endpoint, region);
  return {
    kubeconfig,
    kubeconfigJson: JSON.stringify(kubeconfig),
    eksCluster: {
      name: clusterName,
      arn: arn(region, "eks", `cluster/${clusterName}`),
      endpoint,
      version: inputs.version,
      vpcConfig: {
        clusterSecurityGroupId: ec2Id("sg", "cluster", name),
        vpcId: inputs.vpcId,
        subnetIds: inputs.privateSubnetIds,
      },
    },
    clusterSecurityGroupId: ec2Id("sg", "cluster", name),
    nodeSecurityGroupId: ec2Id("sg", "node", name),
    oidcProviderArn: arn(region, "iam", `oidc-provider/oidc.eks.${region}.amazonaws.com/id/${id}`, true),
    oidcProviderUrl: `oidc.eks.${region}.amazonaws.com/id/${id}`,
    oidcIssuer: `oidc.eks.${region}.amazonaws.com/id/${id}`,
    core: {
      cluster: { name: clusterName },
      endpoint,
      oidcProvider: { arn: arn(region, "iam", `oidc-provider/oidc.eks.${region}.amazonaws.com/id/${id}`, true) },
    },
  };
}

function dockerImage(name: string, inputs: Inputs): { digest: string; ref: string; contextHash: string } {
  // The digest is a function of the build inputs: build args, target, platforms and the tags (the
  // image component tags by a hash of the Dockerfile and context contents). Local paths are left out
  // so every checkout renders the same digest.
  const digest = `sha256:${hexOf({ buildArgs: inputs.buildArgs ?? {}, target: inputs.target, platforms: inputs.platforms, tags: inputs.tags })}`;
  const tags = Array.isArray(inputs.tags) ? (inputs.tags as unknown[]) : [];
  const tag = typeof tags[0] === "string" ? tags[0] : `${name}:latest`;
  const repo = tag.replace(/:[^/:]+$/, "");
  return { digest, ref: `${repo}@${digest}`, contextHash: hexOf(inputs.context ?? {}) };
}

const BY_TYPE: Record<string, OutputFn> = {
  "eks:index:Cluster": eksCluster,
  "awsx:ec2:Vpc": (name, inputs, region) => ({
    // One private and one public subnet per AZ, in the order of availabilityZoneNames (as awsx does).
    vpcId: ec2Id("vpc", "vpc", name),
    privateSubnetIds: zonesOf(inputs).map((z) => ec2Id("subnet", `private-${z}`, name)),
    publicSubnetIds: zonesOf(inputs).map((z) => ec2Id("subnet", `public-${z}`, name)),
    isolatedSubnetIds: [],
    natGateways: [],
    subnets: [],
    vpc: { id: ec2Id("vpc", "vpc", name), arn: arn(region, "ec2", `vpc/${ec2Id("vpc", "vpc", name)}`) },
  }),
  "aws:ec2/vpc:Vpc": (name) => ({ id: ec2Id("vpc", "vpc", name) }),
  "aws:ec2/subnet:Subnet": (name, inputs) => ({ availabilityZone: inputs.availabilityZone }),
  "aws:ec2/launchTemplate:LaunchTemplate": (name, _i, region) => ({
    latestVersion: 1,
    defaultVersion: 1,
    arn: arn(region, "ec2", `launch-template/${ec2Id("lt", "lt", name)}`),
  }),
  "aws:ec2/placementGroup:PlacementGroup": (name, inputs, region) => ({
    name: inputs.name ?? autoName("pg", name),
    placementGroupId: ec2Id("pg", "pg", name),
    arn: arn(region, "ec2", `placement-group/${inputs.name ?? autoName("pg", name)}`),
  }),
  "aws:eks/nodeGroup:NodeGroup": (name, inputs, region) => ({
    status: "ACTIVE",
    arn: arn(
      region,
      "eks",
      `nodegroup/${inputs.clusterName ?? "cluster"}/${inputs.nodeGroupName ?? autoName("ng", name)}/${hexOf(name, 8)}`,
    ),
    nodeGroupName: inputs.nodeGroupName ?? autoName("ng", name),
  }),
  "aws:eks/addon:Addon": (name, inputs, region) => ({
    arn: arn(region, "eks", `addon/${inputs.clusterName ?? "cluster"}/${inputs.addonName ?? name}/${hexOf(name, 8)}`),
    addonVersion: inputs.addonVersion,
  }),
  "aws:iam/role:Role": (name, inputs, region) => ({
    arn: arn(region, "iam", `role/${inputs.name ?? autoName("role", name)}`, true),
    name: inputs.name ?? autoName("role", name),
    uniqueId: `AROA${hexOf(name, 17).toUpperCase()}`,
  }),
  "aws:iam/policy:Policy": (name, inputs, region) => ({
    arn: arn(region, "iam", `policy/${inputs.name ?? autoName("policy", name)}`, true),
  }),
  "aws:kms/key:Key": (name, _i, region) => {
    const keyId = `${hexOf(name, 8)}-${hexOf([name, 1], 4)}-${hexOf([name, 2], 4)}-${hexOf([name, 3], 4)}-${hexOf([name, 4], 12)}`;
    return { keyId, arn: arn(region, "kms", `key/${keyId}`) };
  },
  "aws:ecr/repository:Repository": (name, inputs, region) => {
    const repo = inputs.name ?? autoName("ecr", name);
    return {
      repositoryUrl: `${PLACEHOLDER_ACCOUNT}.dkr.ecr.${region}.amazonaws.com/${repo}`,
      registryId: PLACEHOLDER_ACCOUNT,
      arn: arn(region, "ecr", `repository/${repo}`),
      name: repo,
    };
  },
  "aws:efs/fileSystem:FileSystem": (name, _i, region) => ({
    arn: arn(region, "elasticfilesystem", `file-system/${ec2Id("fs", "efs", name)}`),
    dnsName: `${ec2Id("fs", "efs", name)}.efs.${region}.amazonaws.com`,
  }),
  "docker-build:index:Image": (name, inputs) => dockerImage(name, inputs),
  // A moving model revision is resolved at `pulumi up` (components/inference/model-commit.ts); offline there is no
  // hub to ask, so every render shows one commit that is recognisably not real (the plan says so).
  "pulumi-nodejs:dynamic/inference:ModelCommit": () => ({ commit: PLACEHOLDER_COMMIT }),
  // A vendor image's tag is resolved to a digest at `pulumi up` (components/image/image-digest.ts); offline there is
  // no registry to ask, so every render shows one digest that is recognisably not real (the plan says so).
  "pulumi-nodejs:dynamic/image:ImageDigest": (_n, inputs) => ({
    digest: PLACEHOLDER_DIGEST,
    ref: `${String(inputs.repository)}@${PLACEHOLDER_DIGEST}`,
  }),
};

/** A Service of type LoadBalancer gets the DNS name AWS gives an internal NLB (the provider waits for it). */
function loadBalancerStatus(type: string, name: string, inputs: Inputs, region: string): Record<string, unknown> {
  if (type !== "kubernetes:core/v1:Service" || record(inputs.spec).type !== "LoadBalancer") return {};
  const host = `${String(record(inputs.metadata).name ?? name).slice(0, 32)}-${hexOf(name, 16)}.elb.${region}.amazonaws.com`;
  return { status: { loadBalancer: { ingress: [{ hostname: host }] } } };
}

/** Outputs for one resource: its inputs echoed back (as a provider does), plus what the type adds. */
export function mockOutputs(type: string, name: string, inputs: Inputs, region: string): Outputs {
  const specific = BY_TYPE[type];
  if (specific) return { ...inputs, ...specific(name, inputs, region) };
  if (
    type.startsWith("kubernetes:") &&
    !type.startsWith("kubernetes:helm.sh") &&
    type !== "pulumi:providers:kubernetes"
  ) {
    // The Kubernetes provider auto-names objects without metadata.name.
    const metadata: Record<string, unknown> = { ...record(inputs.metadata) };
    if (!metadata.name) metadata.name = autoName(type, name);
    return { ...inputs, metadata, ...loadBalancerStatus(type, name, inputs, region) };
  }
  if (type === "kubernetes:helm.sh/v3:Release") {
    return {
      ...inputs,
      name: inputs.name ?? autoName(type, name),
      status: { status: "deployed", version: inputs.version, revision: 1, namespace: inputs.namespace ?? "default" },
    };
  }
  if (type.startsWith("aws:")) {
    const { service, kind } = awsParts(type);
    return { ...inputs, arn: arn(region, service, `${kind}/${inputs.name ?? autoName(type, name)}`) };
  }
  return { ...inputs };
}

/** The physical id a provider would return for a custom resource. */
export function mockId(type: string, name: string, inputs: Inputs): string {
  switch (type) {
    case "aws:ec2/securityGroup:SecurityGroup":
      return ec2Id("sg", type, name);
    case "aws:ec2/launchTemplate:LaunchTemplate":
      return ec2Id("lt", "lt", name);
    case "aws:ec2/vpc:Vpc":
      return ec2Id("vpc", "vpc", name);
    case "aws:ec2/subnet:Subnet":
      return ec2Id("subnet", type, name);
    case "aws:ec2/securityGroupRule:SecurityGroupRule":
    case "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
    case "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule":
      return ec2Id("sgr", type, name);
    case "aws:ec2/placementGroup:PlacementGroup":
      return nameOr(inputs, autoName("pg", name));
    case "aws:kms/key:Key":
      return (mockOutputs(type, name, inputs, "us-east-1") as { keyId: string }).keyId;
    case "docker-build:index:Image":
      return dockerImage(name, inputs).ref;
    default:
      if (type.startsWith("kubernetes:")) {
        const md = record(inputs.metadata);
        return `${md.namespace ? `${md.namespace}/` : ""}${md.name ?? autoName(type, name)}`;
      }
      return nameOr(inputs, autoName(type, name));
  }
}

/**
 * Invokes the program may make, with placeholder answers, given the region of the provider they go to. Anything
 * else throws. ECR's token is a placeholder (the build never runs offline) and the components mark it secret.
 * `aws.getRegion` answers the provider's region: `EfaCluster` checks it against its AZs.
 */
export const KNOWN_INVOKES: Readonly<Record<string, (inputs: Inputs, region: string) => Record<string, unknown>>> = {
  "aws:ecr/getAuthorizationToken:getAuthorizationToken": (inputs, region) => ({
    id: region,
    userName: "AWS",
    password: "placeholder-ecr-token",
    authorizationToken: Buffer.from("AWS:placeholder-ecr-token").toString("base64"),
    proxyEndpoint: `https://${inputs.registryId ?? PLACEHOLDER_ACCOUNT}.dkr.ecr.${inputs.region ?? region}.amazonaws.com`,
    expiresAt: "2026-12-31T00:00:00Z",
  }),
  "aws:index/getRegion:getRegion": (inputs, region) => {
    const r = typeof inputs.region === "string" ? inputs.region : region;
    return { id: r, name: r, region: r, endpoint: `ec2.${r}.amazonaws.com`, description: r };
  },
};

/** The type a `pulumi.StackReference` registers as (a read of the referenced stack, its name the id). */
export const STACK_REFERENCE = "pulumi:pulumi:StackReference";

/**
 * A StackReference's state, as the engine's built-in provider reads it: the referenced stack's `outputs` and the
 * names of those holding a secret (`secretOutputNames`, which the SDK's `getOutput*` read). The mocks answer from the
 * outputs given for the stack, a render's `outputs.json` shape, where a secret reads `"[secret]"`; an unknown stack
 * fails the way a missing stack fails `pulumi up`.
 */
function stackReference(
  args: pulumi.runtime.MockResourceArgs,
  stackOutputs: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): { id: string; state: Record<string, unknown> } {
  const name = String(args.inputs.name ?? args.id ?? args.name);
  const outputs = Object.prototype.hasOwnProperty.call(stackOutputs, name) ? stackOutputs[name] : undefined;
  if (!outputs) throw new Error(`unknown stack ${JSON.stringify(name)}: no recorded outputs were given for it`);
  const secretOutputNames = Object.keys(outputs).filter((k) => JSON.stringify(outputs[k]).includes(`"${SECRET}"`));
  return { id: name, state: { name, outputs: { ...outputs }, secretOutputNames } };
}

/** One invoke the program made, with the answer it got. */
export interface MockInvoke {
  readonly token: string;
  readonly inputs: Inputs;
  /** Provider reference (`<urn>::<id>`) when the invoke named one. */
  readonly provider?: string;
  readonly result: Record<string, unknown>;
}

/**
 * Pulumi mocks for a program whose default AWS provider is in `region`: realistic outputs, a hard failure on any
 * unknown invoke, and each invoke appended to `invokes` with its answer (for tests that check what was asked).
 */
export function renderMocks(
  region: string,
  invokes: MockInvoke[] = [],
  stackOutputs: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {},
): pulumi.runtime.Mocks {
  // The region of each explicit `aws.Provider`, by its id (a provider reference ends in `::<id>`).
  const providerRegions = new Map<string, string>();
  const regionOf = (ref: string | undefined): string =>
    (ref ? providerRegions.get(ref.slice(ref.lastIndexOf("::") + 2)) : undefined) ?? region;
  return {
    newResource(args: pulumi.runtime.MockResourceArgs) {
      if (args.type === STACK_REFERENCE) return stackReference(args, stackOutputs);
      const state = mockOutputs(args.type, args.name, args.inputs, regionOf(args.provider));
      const id = args.custom === false ? undefined : mockId(args.type, args.name, args.inputs);
      if (args.type === "pulumi:providers:aws" && typeof args.inputs.region === "string")
        providerRegions.set(id!, args.inputs.region);
      return { id: id as string, state };
    },
    call(args: pulumi.runtime.MockCallArgs) {
      const answer = KNOWN_INVOKES[args.token];
      if (!answer)
        throw new Error(
          `unexpected invoke ${args.token}: the program must derive facts from the catalog, not the cloud`,
        );
      const result = answer(args.inputs, regionOf(args.provider));
      invokes.push({
        token: args.token,
        inputs: args.inputs,
        ...(args.provider ? { provider: args.provider } : {}),
        result,
      });
      return result;
    },
  };
}
