/**
 * Shared recording mocks for component tests (docs/CONTRIBUTING.md rule 16). Records every resource the code
 * registers, answers invokes only for tokens listed in `KNOWN_INVOKES` (anything else throws, so an
 * unexpected cloud lookup fails the test instead of silently returning `{}`), and returns realistic,
 * deterministic outputs per resource type.
 *
 * Use: `const rec = await armMocks()` in `before()`, then `await import(...)` the component.
 */
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";

/** One registration seen by the mock monitor. */
export interface Recorded {
  readonly type: string;
  readonly name: string;
  /**
   * The inputs exactly as Pulumi's mock monitor hands them over (`MockResourceArgs.inputs`, which Pulumi itself
   * types `any`): each resource type has its own shape, and the tests read them by path.
   */
  readonly inputs: pulumi.runtime.MockResourceArgs["inputs"];
  readonly provider?: string;
  readonly custom: boolean;
}

/** Outputs (or an invoke's answer) as plain data. */
type Props = Record<string, unknown>;

/** Invoke tokens the code under test may call, with their answers. Unknown tokens throw. */
export const KNOWN_INVOKES: Record<string, (inputs: Props) => Props> = {};

/** Deterministic 64-hex digest of any JSON-able value. */
export function hex64(v: unknown): string {
  return createHash("sha256").update(JSON.stringify(v)).digest("hex");
}

/** `v` when it is a string (an input the component set), else undefined (left out). */
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const ACCOUNT = "123456789012";

/** The EKS cluster's outputs: a kubeconfig that names it, its security groups, its OIDC provider. */
function clusterOutputs(name: string): Props {
  const oidc = `oidc.eks.us-east-2.amazonaws.com/id/${name.toUpperCase()}`;
  return {
    kubeconfig: {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name, cluster: { server: `https://${name}.eks.example` } }],
    },
    kubeconfigJson: JSON.stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name }] }),
    eksCluster: {
      name: `${name}-eks`,
      arn: `arn:aws:eks:us-east-2:${ACCOUNT}:cluster/${name}`,
      vpcConfig: { clusterSecurityGroupId: "sg-0e4c1a55e7000c0de" },
    },
    clusterSecurityGroupId: "sg-0c1a55e70000c0de",
    nodeSecurityGroupId: "sg-0e0de0000000c0de",
    oidcProviderArn: `arn:aws:iam::${ACCOUNT}:oidc-provider/${oidc}`,
    oidcProviderUrl: oidc,
    oidcIssuer: oidc,
  };
}

/** The VPC's outputs. */
function vpcOutputs(name: string, inputs: Props): Props {
  // awsx lists private/public subnet ids in the order of availabilityZoneNames; the ids name their AZ
  // so tests can check that a pool landed in the subnet of its own AZ.
  const azs = Array.isArray(inputs.availabilityZoneNames)
    ? inputs.availabilityZoneNames.map(String)
    : ["us-east-2a", "us-east-2b"];
  return {
    vpcId: `vpc-${hex64(name).slice(0, 17)}`,
    privateSubnetIds: azs.map((az) => `subnet-private-${az}`),
    publicSubnetIds: azs.map((az) => `subnet-public-${az}`),
  };
}

/** The image's outputs: a digest of what decides the build, and a ref pinned to it. */
function imageOutputs(name: string, inputs: Props): Props {
  const digest = `sha256:${hex64({ buildArgs: inputs.buildArgs, target: inputs.target, dockerfile: inputs.dockerfile })}`;
  const tag = (Array.isArray(inputs.tags) ? str(inputs.tags[0]) : undefined) ?? `image:${name}`;
  return {
    digest,
    ref: `${tag.split(":").slice(0, -1).join(":") || tag}@${digest}`,
    contextHash: hex64(inputs.context ?? {}),
  };
}

/** Extra outputs a real provider would return, per resource type (a type not listed returns none). */
const OUTPUTS: Readonly<Record<string, (name: string, inputs: Props) => Props>> = {
  "eks:index:Cluster": clusterOutputs,
  "awsx:ec2:Vpc": vpcOutputs,
  "aws:ec2/securityGroup:SecurityGroup": (name) => ({
    arn: `arn:aws:ec2:us-east-2:${ACCOUNT}:security-group/${name}-id`,
  }),
  "aws:ec2/placementGroup:PlacementGroup": (name, inputs) => ({
    name: str(inputs.name) ?? name,
    arn: `arn:aws:ec2:us-east-2:${ACCOUNT}:placement-group/${name}`,
  }),
  "aws:eks/nodeGroup:NodeGroup": (name, inputs) => ({
    nodeGroupName: str(inputs.nodeGroupName) ?? name,
    arn: `arn:aws:eks:us-east-2:${ACCOUNT}:nodegroup/${name}`,
  }),
  "aws:efs/fileSystem:FileSystem": (name) => ({
    arn: `arn:aws:elasticfilesystem:us-east-2:${ACCOUNT}:file-system/${name}-id`,
  }),
  "aws:iam/policy:Policy": (name) => ({ arn: `arn:aws:iam::${ACCOUNT}:policy/${name}` }),
  "aws:ec2/launchTemplate:LaunchTemplate": (name) => ({
    latestVersion: 1,
    arn: `arn:aws:ec2:us-east-2:${ACCOUNT}:launch-template/lt-${hex64(name).slice(0, 17)}`,
  }),
  "aws:iam/role:Role": (name, inputs) => ({
    arn: `arn:aws:iam::${ACCOUNT}:role/${name}`,
    name: str(inputs.name) ?? name,
  }),
  "aws:kms/key:Key": (name) => ({
    arn: `arn:aws:kms:us-east-2:${ACCOUNT}:key/${hex64(name).slice(0, 8)}-0000-0000-0000-000000000000`,
    keyId: `${name}-id`,
  }),
  "aws:ecr/repository:Repository": (name, inputs) => ({
    repositoryUrl: `${ACCOUNT}.dkr.ecr.us-east-2.amazonaws.com/${str(inputs.name) ?? name}`,
    arn: `arn:aws:ecr:us-east-2:${ACCOUNT}:repository/${str(inputs.name) ?? name}`,
  }),
  "docker-build:index:Image": imageOutputs,
};

/** The recording mocks, unarmed: registrations are appended to `recorded` (for `tools/render/capture/capture.ts`). */
export function recordingMocks(): { mocks: pulumi.runtime.Mocks; recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  const mocks: pulumi.runtime.Mocks = {
    newResource(args: pulumi.runtime.MockResourceArgs) {
      recorded.push({
        type: args.type,
        name: args.name,
        inputs: args.inputs,
        provider: args.provider,
        custom: args.custom ?? true,
      });
      const id = args.custom === false ? undefined : `${args.name}-id`;
      return { id: id as string, state: { ...args.inputs, ...OUTPUTS[args.type]?.(args.name, args.inputs) } };
    },
    call(args: pulumi.runtime.MockCallArgs) {
      const answer = KNOWN_INVOKES[args.token];
      if (!answer)
        throw new Error(
          `unexpected invoke ${args.token}: components must derive facts from the catalog, not the cloud`,
        );
      return answer(args.inputs);
    },
  };
  return { mocks, recorded };
}

/** Arms Pulumi's mocks (process-global) and returns the list registrations are appended to. */
export function armMocks(project = "dynamo-efa", stack = "test", config: Record<string, string> = {}): Recorded[] {
  const { mocks, recorded } = recordingMocks();
  pulumi.runtime.setMocks(mocks, project, stack, false);
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) full[k.includes(":") ? k : `${project}:${k}`] = v;
  pulumi.runtime.setAllConfig(full);
  return recorded;
}

/** Registrations of one type, sorted by name (registration order is not deterministic). */
export function ofType(recorded: readonly Recorded[], type: string): Recorded[] {
  return recorded.filter((r) => r.type === type).sort((a, b) => a.name.localeCompare(b.name));
}

/** The single registration with this type and name; throws listing what exists otherwise. */
export function one(recorded: readonly Recorded[], type: string, name: string): Recorded {
  const hit = recorded.find((r) => r.type === type && r.name === name);
  if (!hit)
    throw new Error(`no ${type} named ${name}; have: ${recorded.map((r) => `${r.type}::${r.name}`).join(", ")}`);
  return hit;
}
