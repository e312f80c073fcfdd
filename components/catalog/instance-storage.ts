/**
 * Instance-store NVMe per instance type, in GB (decimal, as EC2 reports `InstanceStorageInfo.TotalSizeInGB`).
 * Pure data. The GPU node group's user data turns these disks into one RAID0 array (nodeadm
 * `localStorage.strategy: RAID0`), where the `local-nvme` model cache lives.
 *
 * Source: EC2 DescribeInstanceTypes as recorded by Karpenter's generated instance-type reference
 * (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe
 * `website/content/en/docs/reference/instance-types.md`, label `karpenter.k8s.aws/instance-local-nvme`);
 * held to it by `tests/contracts/instance-storage.spec.ts` (facts/instance-local-nvme.json).
 */

/** Total instance-store NVMe of each catalogued type, in GB; every catalogued GPU type has some. */
export const LOCAL_NVME_GB: Readonly<Record<string, number>> = {
  "p4d.24xlarge": 8000,
  "p4de.24xlarge": 8000,
  "p5.48xlarge": 30400,
  "p5e.48xlarge": 30400,
  "p5en.48xlarge": 30400,
  "p5.4xlarge": 3800,
  "p6-b200.48xlarge": 30400,
  "p6-b300.48xlarge": 30400,
  "g5.xlarge": 250,
  "g5.2xlarge": 450,
  "g5.4xlarge": 600,
  "g5.8xlarge": 900,
  "g5.16xlarge": 1900,
  "g5.12xlarge": 3800,
  "g5.24xlarge": 3800,
  "g5.48xlarge": 7600,
  "g6.xlarge": 250,
  "g6.2xlarge": 450,
  "g6.4xlarge": 600,
  "g6.8xlarge": 900,
  "g6.16xlarge": 1880,
  "g6.12xlarge": 3760,
  "g6.24xlarge": 3760,
  "g6.48xlarge": 7520,
  "g6e.xlarge": 250,
  "g6e.2xlarge": 450,
  "g6e.4xlarge": 600,
  "g6e.8xlarge": 900,
  "g6e.16xlarge": 1900,
  "g6e.12xlarge": 3800,
  "g6e.24xlarge": 3800,
  "g6e.48xlarge": 7600,
  "g7e.2xlarge": 1900,
  "g7e.4xlarge": 1900,
  "g7e.8xlarge": 1900,
  "g7e.12xlarge": 3800,
  "g7e.24xlarge": 7600,
  "g7e.48xlarge": 15200,
};

/** Instance-store NVMe of `instanceType` in GB; 0 when it has none (or the catalog does not know it). */
export function localNvmeGB(instanceType: string): number {
  return LOCAL_NVME_GB[instanceType] ?? 0;
}
