/**
 * EFA network policies: the security group on EFA interfaces references itself both ways, and an EFA
 * node group stays in one subnet.
 */
import { strict as assert } from "assert";
import { efaPoolSingleAz, efaSecurityGroupSelfReferencing } from "../../policy/rules/efa-network";
import { happyLaunchTemplate, happyStack, launchTemplateIn, named, T } from "../helpers/policy-fixtures";
import { loose } from "../helpers/policy-graph-fixtures";
import { urnOf } from "../helpers/policy-harness";
import { planResource, runStackPolicy, stackArgs, stackPolicyTable, UNKNOWN_STRING } from "../helpers/policy-harness";

describe("policies: EFA network (self-referencing security group, single AZ)", () => {
  const SG_FIX =
    "add protocol -1 rules referencing the group itself for BOTH ingress and egress, or EFA traffic between nodes is dropped";
  const noSelf = (dirs: string) =>
    `launch template "c-gpu-lt" has EFA interfaces but none of its security groups allows all traffic to and from itself (self-referencing "c-efa": ${dirs}); ${SG_FIX}`;
  const sgUrn = urnOf(T.SecurityGroup, "c-efa");
  const vpcRule = (type: string, name: string) =>
    planResource(
      type,
      { securityGroupId: "c-efa-id", ipProtocol: "-1", referencedSecurityGroupId: "c-efa-id" },
      { name, propertyDependencies: { securityGroupId: [sgUrn], referencedSecurityGroupId: [sgUrn] } },
    );
  stackPolicyTable(efaSecurityGroupSelfReferencing, happyStack, [
    {
      title: "ingress only (egress missing)",
      mutate: (plan) => plan.filter((r) => r.name !== "c-efa-egress"),
      expect: [noSelf("ingress")],
    },
    {
      title: "ingress from a CIDR instead of the group itself",
      mutate: (plan) => {
        const r = named(plan, "c-efa-ingress").props;
        loose(r).self = false;
        loose(r).cidrBlocks = ["10.0.0.0/16"];
      },
      expect: [noSelf("egress")],
    },
    {
      title: "ingress for TCP only",
      mutate: (plan) => {
        Object.assign(named(plan, "c-efa-ingress").props, { protocol: "tcp", fromPort: 0, toPort: 65535 });
      },
      expect: [noSelf("egress")],
    },
    {
      title: "aws.vpc ingress/egress rules referencing the group pass",
      mutate: (plan) => [
        ...plan.filter((r) => r.type !== T.SgRule),
        vpcRule(T.SgIngressRule, "c-efa-in"),
        vpcRule(T.SgEgressRule, "c-efa-out"),
      ],
      expect: [],
    },
    {
      title: "aws.vpc rules that reference another group fail",
      mutate: (plan) => [
        ...plan.filter((r) => r.type !== T.SgRule),
        vpcRule(T.SgIngressRule, "c-efa-in"),
        planResource(
          T.SgEgressRule,
          { securityGroupId: "c-efa-id", ipProtocol: "-1", referencedSecurityGroupId: "sg-other" },
          { name: "c-efa-out", propertyDependencies: { securityGroupId: [sgUrn] } },
        ),
      ],
      expect: [noSelf("ingress")],
    },
    {
      title: "inline self rules on the group pass",
      mutate: (plan) => {
        Object.assign(named(plan, "c-efa").props, {
          ingress: [{ protocol: "-1", fromPort: 0, toPort: 0, self: true }],
          egress: [{ protocol: "-1", fromPort: 0, toPort: 0, self: true }],
        });
        return plan.filter((r) => r.type !== T.SgRule);
      },
      expect: [],
    },
    {
      title: "EFA interfaces on a group not created in this stack",
      mutate: (plan) => {
        const lt = named(plan, "c-gpu-lt");
        delete loose(lt).propertyDependencies;
        for (const n of launchTemplateIn(plan).networkInterfaces) n.securityGroups = ["sg-0123"];
      },
      expect: [
        `launch template "c-gpu-lt" has EFA interfaces but no security group created in this stack is attached to them (got ["sg-0123"]); attach a security group with self-referencing all-traffic ingress and egress rules`,
      ],
    },
    {
      title: "a group of the stack this one reads (a model stack's pool on a cluster stack's EFA group) passes here",
      mutate: (plan) => {
        const lt = named(plan, "c-gpu-lt");
        delete loose(lt).propertyDependencies;
        for (const n of launchTemplateIn(plan).networkInterfaces) n.securityGroups = ["sg-0123"];
        plan.push({
          ...lt,
          type: "pulumi:pulumi:StackReference",
          name: "ref",
          urn: `${lt.urn}-ref`,
          props: { name: "p5en-cluster" },
        });
      },
      expect: [],
    },
    {
      title: "preview: group ids not known yet are skipped, not failed",
      mutate: (plan) => {
        const lt = named(plan, "c-gpu-lt");
        delete loose(lt).propertyDependencies;
        for (const n of launchTemplateIn(plan).networkInterfaces) n.securityGroups = [UNKNOWN_STRING];
      },
      expect: [],
    },
    {
      title: "the group matched by id when dependencies are not recorded",
      mutate: (plan) => {
        delete loose(named(plan, "c-gpu-lt")).propertyDependencies;
        return plan.filter((r) => r.name !== "c-efa-egress");
      },
      expect: [noSelf("ingress")],
    },
  ]);

  const twoSubnets = `node group "c-gpu-ng" uses EFA (launch template "c-gpu-lt") but spans 2 subnets ["subnet-a","subnet-b"]; EFA traffic does not cross availability zones and a cluster placement group is single-AZ: give it exactly one private subnet`;
  const subnet = (name: string, az: string) => planResource(T.Subnet, { availabilityZone: az }, { name });
  stackPolicyTable(efaPoolSingleAz, happyStack, [
    {
      title: "an EFA node group over two subnets",
      mutate: (plan) => {
        loose(named(plan, "c-gpu-ng").props).subnetIds = ["subnet-a", "subnet-b"];
      },
      expect: [twoSubnets],
    },
    {
      title: "two subnets known to share one AZ pass",
      mutate: (plan) => {
        const ng = named(plan, "c-gpu-ng");
        loose(ng.props).subnetIds = ["subnet-a", "subnet-b"];
        loose(ng.propertyDependencies!).subnetIds = [urnOf(T.Subnet, "a"), urnOf(T.Subnet, "b")];
        return [...plan, subnet("a", "us-east-2a"), subnet("b", "us-east-2a")];
      },
      expect: [],
    },
    {
      title: "two subnets in two AZs",
      mutate: (plan) => {
        const ng = named(plan, "c-gpu-ng");
        loose(ng.props).subnetIds = ["subnet-a", "subnet-b"];
        loose(ng.propertyDependencies!).subnetIds = [urnOf(T.Subnet, "a"), urnOf(T.Subnet, "b")];
        return [...plan, subnet("a", "us-east-2a"), subnet("b", "us-east-2b")];
      },
      expect: [twoSubnets],
    },
    {
      title: "the launch template matched by id when dependencies are not recorded",
      mutate: (plan) => {
        const ng = named(plan, "c-gpu-ng");
        delete loose(ng).propertyDependencies;
        loose(ng.props).subnetIds = ["subnet-a", "subnet-b"];
        loose(named(plan, "c-gpu-lt").props).id = "c-gpu-lt-id";
      },
      expect: [twoSubnets],
    },
    {
      title: "preview: subnets not known yet are skipped",
      mutate: (plan) => {
        loose(named(plan, "c-gpu-ng").props).subnetIds = UNKNOWN_STRING;
      },
      expect: [],
    },
  ]);

  it("efa policies: not applicable without EFA launch templates", async () => {
    const plan = happyStack().map((r) =>
      r.type === T.LaunchTemplate ? { ...r, props: { ...happyLaunchTemplate(), networkInterfaces: undefined } } : r,
    );
    assert.equal(
      (await runStackPolicy(efaSecurityGroupSelfReferencing, stackArgs(plan))).notApplicable,
      "no launch template with EFA interfaces",
    );
    assert.equal(
      (await runStackPolicy(efaPoolSingleAz, stackArgs(plan))).notApplicable,
      "no node group with an EFA launch template",
    );
  });
});
