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
  readonly inputs: Record<string, any>;
  readonly provider?: string;
  readonly custom: boolean;
}

/** Invoke tokens the code under test may call, with their answers. Unknown tokens throw. */
export const KNOWN_INVOKES: Record<string, (inputs: any) => Record<string, any>> = {};

/** Deterministic 64-hex digest of any JSON-able value. */
export function hex64(v: unknown): string {
  return createHash("sha256").update(JSON.stringify(v)).digest("hex");
}

/** Extra outputs a real provider would return, per resource type. */
function outputsFor(type: string, name: string, inputs: Record<string, any>): Record<string, any> {
  const id = `${name}-id`;
  switch (type) {
    case "eks:index:Cluster":
      return {
        kubeconfig: {
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name, cluster: { server: `https://${name}.eks.example` } }],
        },
        kubeconfigJson: JSON.stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name }] }),
        eksCluster: {
          name: `${name}-eks`,
          arn: `arn:aws:eks:us-east-2:123456789012:cluster/${name}`,
          vpcConfig: { clusterSecurityGroupId: "sg-0e4c1a55e7000c0de" },
        },
        clusterSecurityGroupId: "sg-0c1a55e70000c0de",
        nodeSecurityGroupId: "sg-0e0de0000000c0de",
        oidcProviderArn: `arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-2.amazonaws.com/id/${name.toUpperCase()}`,
        oidcProviderUrl: `oidc.eks.us-east-2.amazonaws.com/id/${name.toUpperCase()}`,
        oidcIssuer: `oidc.eks.us-east-2.amazonaws.com/id/${name.toUpperCase()}`,
      };
    case "awsx:ec2:Vpc": {
      // awsx lists private/public subnet ids in the order of availabilityZoneNames; the ids name their AZ
      // so tests can check that a pool landed in the subnet of its own AZ.
      const azs: string[] = inputs.availabilityZoneNames ?? ["us-east-2a", "us-east-2b"];
      return {
        vpcId: `vpc-${hex64(name).slice(0, 17)}`,
        privateSubnetIds: azs.map((az) => `subnet-private-${az}`),
        publicSubnetIds: azs.map((az) => `subnet-public-${az}`),
      };
    }
    case "aws:ec2/securityGroup:SecurityGroup":
      return { arn: `arn:aws:ec2:us-east-2:123456789012:security-group/${id}` };
    case "aws:ec2/placementGroup:PlacementGroup":
      return { name: inputs.name ?? name, arn: `arn:aws:ec2:us-east-2:123456789012:placement-group/${name}` };
    case "aws:eks/nodeGroup:NodeGroup":
      return {
        nodeGroupName: inputs.nodeGroupName ?? name,
        arn: `arn:aws:eks:us-east-2:123456789012:nodegroup/${name}`,
      };
    case "aws:efs/fileSystem:FileSystem":
      return { arn: `arn:aws:elasticfilesystem:us-east-2:123456789012:file-system/${id}` };
    case "aws:iam/policy:Policy":
      return { arn: `arn:aws:iam::123456789012:policy/${name}` };
    case "aws:ec2/launchTemplate:LaunchTemplate":
      return {
        latestVersion: 1,
        arn: `arn:aws:ec2:us-east-2:123456789012:launch-template/lt-${hex64(name).slice(0, 17)}`,
      };
    case "aws:iam/role:Role":
      return { arn: `arn:aws:iam::123456789012:role/${name}`, name: inputs.name ?? name };
    case "aws:kms/key:Key":
      return {
        arn: `arn:aws:kms:us-east-2:123456789012:key/${hex64(name).slice(0, 8)}-0000-0000-0000-000000000000`,
        keyId: id,
      };
    case "aws:ecr/repository:Repository":
      return {
        repositoryUrl: `123456789012.dkr.ecr.us-east-2.amazonaws.com/${inputs.name ?? name}`,
        arn: `arn:aws:ecr:us-east-2:123456789012:repository/${inputs.name ?? name}`,
      };
    case "docker-build:index:Image": {
      const digest = `sha256:${hex64({ buildArgs: inputs.buildArgs, target: inputs.target, dockerfile: inputs.dockerfile })}`;
      const tag: string = (inputs.tags ?? [])[0] ?? `image:${name}`;
      return {
        digest,
        ref: `${tag.split(":").slice(0, -1).join(":") || tag}@${digest}`,
        contextHash: hex64(inputs.context ?? {}),
      };
    }
    default:
      return {};
  }
}

/** Arms Pulumi's mocks (process-global) and returns the list registrations are appended to. */
export function armMocks(project = "dynamo-efa", stack = "test", config: Record<string, string> = {}): Recorded[] {
  const recorded: Recorded[] = [];
  pulumi.runtime.setMocks(
    {
      newResource(args: pulumi.runtime.MockResourceArgs) {
        recorded.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          provider: args.provider,
          custom: args.custom ?? true,
        });
        const id = args.custom === false ? undefined : `${args.name}-id`;
        return { id: id as string, state: { ...args.inputs, ...outputsFor(args.type, args.name, args.inputs) } };
      },
      call(args: pulumi.runtime.MockCallArgs) {
        const answer = KNOWN_INVOKES[args.token];
        if (!answer)
          throw new Error(
            `unexpected invoke ${args.token}: components must derive facts from the catalog, not the cloud`,
          );
        return answer(args.inputs);
      },
    },
    project,
    stack,
    false,
  );
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
