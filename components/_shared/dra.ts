/**
 * Names both sides of Dynamic Resource Allocation use: the DeviceClasses the DRA drivers' charts create (the cluster
 * installs them), the device attribute a claim pairs GPUs and EFA devices on (the graph's claims name it), and the
 * API the claims are written in. One place, so the cluster's charts and the graph's claims cannot disagree. Pure.
 * Facts: tests/contracts/facts/dranet.json, dra-driver-nvidia-gpu.json, eks-device-management.json.
 */

/** The EFA DRA driver's DeviceClass (aws-dranet `deviceClass.name`; selects `dra.net` devices that are EFA). */
export const EFA_DEVICE_CLASS = "efa.networking.k8s.aws";

/** NVIDIA's GPU DRA driver's DeviceClass (dra-driver-nvidia-gpu `templates/deviceclass-gpu.yaml`). */
export const GPU_DEVICE_CLASS = "gpu.nvidia.com";

/**
 * The standard device attribute both drivers publish for every PCI device: its PCIe root complex, `pci<domain>:<bus>`,
 * the first component of the device's `/sys/devices` path (k8s.io/dynamic-resource-allocation `deviceattribute`).
 */
export const PCIE_ROOT_ATTRIBUTE = "resource.kubernetes.io/pcieRoot";

/** The API group/version of DeviceClass, ResourceClaim and ResourceClaimTemplate (GA in Kubernetes 1.34). */
export const RESOURCE_API_VERSION = "resource.k8s.io/v1";

/** The PCIe root of a device from its sysfs path (`/sys/devices/pci0000:10/0000:10:1c.0` -> `pci0000:10`). */
export function pcieRootOf(sysfsPath: string): string | undefined {
  return /^\/sys\/devices\/(pci[0-9a-f]{4}:[0-9a-f]{2})(?:\/|$)/.exec(sysfsPath)?.[1];
}
