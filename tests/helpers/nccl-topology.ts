/**
 * An NCCL topology file (the XML aws-ofi-nccl ships per instance type) read as the sysfs device paths the
 * locality probe prints: each `<pci busid>` nested in another is a device behind that bridge, under the CPU's
 * root bus `pci<domain>:00`. Tests build worker probes from a recorded upstream tree instead of typing paths.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A GPU or EFA device of the tree: its NCCL index or EFA name, bus id and sysfs path. */
export interface TopoDevice {
  readonly kind: "gpu" | "efa";
  /** GPU: its `dev` index; EFA: its `net name`. */
  readonly id: string;
  readonly bus: string;
  readonly path: string;
}

/** Every GPU and EFA device of the topology file under tests/fixtures/topology/. */
export function topologyDevices(file: string): TopoDevice[] {
  const xml = readFileSync(join(__dirname, "..", "fixtures", "topology", file), "utf8");
  const stack: string[] = [];
  const out: TopoDevice[] = [];
  for (const m of xml.matchAll(/<pci busid="([^"]+)"[^>]*>|<\/pci>|<gpu dev="(\d+)"|<net name="([^"]+)"/g)) {
    if (m[0] === "</pci>") stack.pop();
    else if (m[1]) stack.push(m[1]);
    else {
      const bus = stack.at(-1)!;
      const path = `/sys/devices/pci${bus.slice(0, 4)}:00/${stack.join("/")}`;
      out.push(m[2] !== undefined ? { kind: "gpu", id: m[2], bus, path } : { kind: "efa", id: m[3]!, bus, path });
    }
  }
  return out;
}

/** The locality probe's output for a worker holding these devices. */
export function probeOutput(devices: readonly TopoDevice[]): string {
  return devices.map((d) => `${d.kind} ${d.kind === "gpu" ? d.bus : d.id} ${d.path}`).join("\n");
}
