/**
 * EKS cluster policies: Kubernetes secrets encrypted with KMS, and the API endpoint not open to the
 * whole internet (both cluster shapes: @pulumi/eks and aws.eks.Cluster).
 */
import { eksEndpointNotWorldOpen, eksSecretsEncrypted } from "../../policy/rules/security";
import { happyStack, named, T } from "../helpers/policy-fixtures";
import { loose } from "../helpers/policy-graph-fixtures";
import { resourcePolicyTable, UNKNOWN_STRING } from "../helpers/policy-harness";

const props = (name: string) => () => JSON.parse(JSON.stringify(named(happyStack(), name).props));
const happyAwsCluster = () => ({
  encryptionConfig: { provider: { keyArn: "arn:aws:kms:us-east-2:123456789012:key/k" }, resources: ["secrets"] },
  vpcConfig: { endpointPrivateAccess: true, endpointPublicAccess: false },
});

describe("policies: EKS cluster security", () => {
  resourcePolicyTable(
    eksSecretsEncrypted,
    T.EksCluster,
    props("c-eks"),
    [
      {
        title: "no KMS key",
        mutate: (c) => {
          delete c.encryptionConfigKeyArn;
        },
        expect: [
          `EKS cluster "c-eks" does not encrypt Kubernetes secrets; set encryptionConfigKeyArn to a KMS key ARN`,
        ],
      },
      {
        title: "preview: a key created in the same run is not known yet",
        mutate: (c) => {
          c.encryptionConfigKeyArn = UNKNOWN_STRING;
        },
        expect: [],
      },
    ],
    { name: "c-eks" },
  );
  resourcePolicyTable(
    eksSecretsEncrypted,
    T.AwsEksCluster,
    happyAwsCluster,
    [
      {
        title: "encryption config without secrets",
        mutate: (c) => {
          c.encryptionConfig.resources = [];
        },
        expect: [
          `EKS cluster "c-eks" does not encrypt Kubernetes secrets (encryptionConfig {"provider":{"keyArn":"arn:aws:kms:us-east-2:123456789012:key/k"},"resources":[]}); set encryptionConfig: { provider: { keyArn: <KMS key ARN> }, resources: ["secrets"] }`,
        ],
      },
      {
        title: "no encryption config",
        mutate: (c) => {
          delete loose(c).encryptionConfig;
        },
        expect: [
          `EKS cluster "c-eks" does not encrypt Kubernetes secrets (encryptionConfig undefined); set encryptionConfig: { provider: { keyArn: <KMS key ARN> }, resources: ["secrets"] }`,
        ],
      },
    ],
    { name: "c-eks" },
  );

  const open = (why: string) =>
    `EKS cluster "c-eks" exposes its API endpoint to the whole internet (${why}); set endpointPublicAccess: false for a private endpoint, or list only your own CIDRs in publicAccessCidrs`;
  resourcePolicyTable(
    eksEndpointNotWorldOpen,
    T.EksCluster,
    props("c-eks"),
    [
      {
        title: "0.0.0.0/0 listed",
        mutate: (c) => {
          c.publicAccessCidrs = ["203.0.113.0/24", "0.0.0.0/0"];
        },
        expect: [open('publicAccessCidrs ["203.0.113.0/24","0.0.0.0/0"] cover 0.0.0.0/0')],
      },
      {
        title: "0.0.0.0/00: the whole internet in another spelling",
        mutate: (c) => {
          c.publicAccessCidrs = ["0.0.0.0/00"];
        },
        expect: [open('publicAccessCidrs ["0.0.0.0/00"] cover 0.0.0.0/0')],
      },
      {
        title: "0.0.0.0/1 + 128.0.0.0/1: the whole internet in two halves",
        mutate: (c) => {
          c.publicAccessCidrs = ["0.0.0.0/1", "128.0.0.0/1"];
        },
        expect: [open('publicAccessCidrs ["0.0.0.0/1","128.0.0.0/1"] cover 0.0.0.0/0')],
      },
      {
        title: "two halves with a gap (0.0.0.0/1 + 128.0.0.0/2) are not the whole internet",
        mutate: (c) => {
          c.publicAccessCidrs = ["0.0.0.0/1", "128.0.0.0/2"];
        },
        expect: [],
      },
      {
        title: "public with no CIDRs (AWS default: the world)",
        mutate: (c) => {
          delete c.publicAccessCidrs;
        },
        expect: [open("public access is on with no publicAccessCidrs (AWS defaults to 0.0.0.0/0)")],
      },
      {
        title: "public access left to the eks default",
        mutate: (c) => {
          delete c.publicAccessCidrs;
          delete c.endpointPublicAccess;
        },
        expect: [open("public access is on by default with no publicAccessCidrs (AWS defaults to 0.0.0.0/0)")],
      },
      {
        title: "private endpoint only",
        mutate: (c) => {
          delete c.publicAccessCidrs;
          c.endpointPublicAccess = false;
        },
        expect: [],
      },
    ],
    { name: "c-eks" },
  );
  resourcePolicyTable(
    eksEndpointNotWorldOpen,
    T.AwsEksCluster,
    happyAwsCluster,
    [
      {
        title: "aws.eks.Cluster public with ::/0",
        mutate: (c) => {
          c.vpcConfig.endpointPublicAccess = true;
          loose(c.vpcConfig).publicAccessCidrs = ["::/0"];
        },
        expect: [open('publicAccessCidrs ["::/0"] cover ::/0')],
      },
      {
        title: "aws.eks.Cluster without vpcConfig flags (public by default)",
        mutate: (c) => {
          loose(c).vpcConfig = {};
        },
        expect: [open("public access is on by default with no publicAccessCidrs (AWS defaults to 0.0.0.0/0)")],
      },
    ],
    { name: "c-eks" },
  );
});
