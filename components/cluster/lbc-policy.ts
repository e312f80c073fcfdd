/**
 * IAM policy of the AWS Load Balancer Controller, written for this package from the controller's
 * documented needs (kubernetes-sigs/aws-load-balancer-controller `docs/install/iam_policy.json`):
 * read-only discovery, security groups and load balancers it creates, and changes only to load
 * balancers, target groups and security groups tagged `elbv2.k8s.aws/cluster` (i.e. its own). Pure.
 */

const CLUSTER_TAG = "elbv2.k8s.aws/cluster";
const requestTagged = { Null: { [`aws:RequestTag/${CLUSTER_TAG}`]: "false" } };
const resourceTagged = { Null: { [`aws:ResourceTag/${CLUSTER_TAG}`]: "false" } };
/** ELB resource ARNs the controller tags, in `partition` (an `arn:aws:` ARN matches nothing in aws-cn). */
const elbArns = (partition: string) =>
  ["targetgroup/*/*", "loadbalancer/net/*/*", "loadbalancer/app/*/*"].map(
    (r) => `arn:${partition}:elasticloadbalancing:*:*:${r}`,
  );

const READ = [
  "ec2:DescribeAccountAttributes",
  "ec2:DescribeAddresses",
  "ec2:DescribeAvailabilityZones",
  "ec2:DescribeInternetGateways",
  "ec2:DescribeVpcs",
  "ec2:DescribeVpcPeeringConnections",
  "ec2:DescribeSubnets",
  "ec2:DescribeSecurityGroups",
  "ec2:DescribeInstances",
  "ec2:DescribeNetworkInterfaces",
  "ec2:DescribeTags",
  "ec2:DescribeRouteTables",
  "ec2:DescribeCoipPools",
  "ec2:GetCoipPoolUsage",
  "ec2:DescribeIpamPools",
  "ec2:GetSecurityGroupsForVpc",
  "elasticloadbalancing:DescribeLoadBalancers",
  "elasticloadbalancing:DescribeLoadBalancerAttributes",
  "elasticloadbalancing:DescribeListeners",
  "elasticloadbalancing:DescribeListenerCertificates",
  "elasticloadbalancing:DescribeListenerAttributes",
  "elasticloadbalancing:DescribeSSLPolicies",
  "elasticloadbalancing:DescribeRules",
  "elasticloadbalancing:DescribeTargetGroups",
  "elasticloadbalancing:DescribeTargetGroupAttributes",
  "elasticloadbalancing:DescribeTargetHealth",
  "elasticloadbalancing:DescribeTags",
  "elasticloadbalancing:DescribeTrustStores",
  "elasticloadbalancing:DescribeCapacityReservation",
  "acm:ListCertificates",
  "acm:DescribeCertificate",
];

const MODIFY_OWN = [
  "elasticloadbalancing:ModifyLoadBalancerAttributes",
  "elasticloadbalancing:SetIpAddressType",
  "elasticloadbalancing:SetSecurityGroups",
  "elasticloadbalancing:SetSubnets",
  "elasticloadbalancing:DeleteLoadBalancer",
  "elasticloadbalancing:ModifyTargetGroup",
  "elasticloadbalancing:ModifyTargetGroupAttributes",
  "elasticloadbalancing:DeleteTargetGroup",
  "elasticloadbalancing:ModifyListenerAttributes",
  "elasticloadbalancing:ModifyCapacityReservation",
  "elasticloadbalancing:ModifyIpPools",
];

/** The service-linked role, read access, and the security groups the controller creates and tags itself. */
function securityGroupStatements(partition: string): object[] {
  return [
    {
      Effect: "Allow",
      Action: "iam:CreateServiceLinkedRole",
      Resource: "*",
      Condition: { StringEquals: { "iam:AWSServiceName": "elasticloadbalancing.amazonaws.com" } },
    },
    { Effect: "Allow", Action: READ, Resource: "*" },
    { Effect: "Allow", Action: ["ec2:CreateSecurityGroup"], Resource: "*" },
    {
      Effect: "Allow",
      Action: ["ec2:CreateTags"],
      Resource: `arn:${partition}:ec2:*:*:security-group/*`,
      Condition: { StringEquals: { "ec2:CreateAction": "CreateSecurityGroup" }, ...requestTagged },
    },
    {
      Effect: "Allow",
      Action: [
        "ec2:AuthorizeSecurityGroupIngress",
        "ec2:RevokeSecurityGroupIngress",
        "ec2:DeleteSecurityGroup",
        "ec2:CreateTags",
        "ec2:DeleteTags",
      ],
      Resource: "*",
      Condition: resourceTagged,
    },
  ];
}

/** Load balancers, listeners, rules and target groups: created tagged, then changed only while tagged. */
function loadBalancerStatements(elb: string[]): object[] {
  return [
    {
      Effect: "Allow",
      Action: ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
      Resource: "*",
      Condition: requestTagged,
    },
    {
      Effect: "Allow",
      Action: [
        "elasticloadbalancing:CreateListener",
        "elasticloadbalancing:DeleteListener",
        "elasticloadbalancing:CreateRule",
        "elasticloadbalancing:DeleteRule",
        "elasticloadbalancing:ModifyListener",
        "elasticloadbalancing:ModifyRule",
        "elasticloadbalancing:SetRulePriorities",
        "elasticloadbalancing:AddListenerCertificates",
        "elasticloadbalancing:RemoveListenerCertificates",
      ],
      Resource: "*",
    },
    {
      Effect: "Allow",
      Action: ["elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"],
      Resource: elb,
      Condition: resourceTagged,
    },
    {
      Effect: "Allow",
      Action: ["elasticloadbalancing:AddTags"],
      Resource: elb,
      Condition: {
        StringEquals: { "elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"] },
        ...requestTagged,
      },
    },
    { Effect: "Allow", Action: MODIFY_OWN, Resource: "*", Condition: resourceTagged },
    {
      Effect: "Allow",
      Action: ["elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets"],
      Resource: elb[0],
    },
  ];
}

/** The controller's IAM policy document (JSON), with ARNs in `partition` (e.g. `aws`, `aws-cn`). */
export function loadBalancerControllerPolicy(partition: string): string {
  const statement = [...securityGroupStatements(partition), ...loadBalancerStatements(elbArns(partition))];
  return JSON.stringify({ Version: "2012-10-17", Statement: statement });
}
