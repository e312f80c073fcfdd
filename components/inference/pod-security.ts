/**
 * The strictest Pod Security Standard every pod of the graph's namespace meets, computed from the rendered pods
 * (the graph's services and the prefetch DaemonSet), for the namespace's `pod-security.kubernetes.io/enforce`
 * label. Pure. Only the checks these pods can trip are evaluated (the project renders no hostNetwork, hostPID,
 * hostIPC, hostPort, privileged, procMount, AppArmor or SELinux settings); each is the Standard's own rule.
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/
 */
import type { DgdSecurityContext, K8sVolume } from "./dgd";

export const PodSecurityLevel = { Restricted: "restricted", Baseline: "baseline", Privileged: "privileged" } as const;
export type PodSecurityLevel = (typeof PodSecurityLevel)[keyof typeof PodSecurityLevel];

/** The container runtime's default seccomp filter: what Pod Security "restricted" asks of every container. */
export const RUNTIME_DEFAULT = { type: "RuntimeDefault" } as const;

/** The label Pod Security admission enforces a namespace's level by. */
export const PSA_ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";

/** Capabilities the baseline Standard lets a container add. */
const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);
/** Volume types the restricted Standard allows. */
const RESTRICTED_VOLUMES = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
];

/** What a pod's level depends on. */
export interface PodShape {
  readonly name: string;
  readonly volumes: readonly K8sVolume[];
  readonly containers: readonly { readonly name: string; readonly securityContext?: DgdSecurityContext }[];
  /** Pod-level seccomp profile type, when the pod sets one. */
  readonly podSeccomp?: string;
}

/** Why a pod fails a level: `baseline` reasons make it privileged, `restricted` ones make it baseline. */
export function podViolations(p: PodShape): { baseline: string[]; restricted: string[] } {
  const baseline: string[] = [];
  const restricted: string[] = [];
  for (const v of p.volumes) {
    const type = Object.keys(v).find((k) => k !== "name") ?? "?";
    if (type === "hostPath") baseline.push(`${p.name}: hostPath volume ${v.name}`);
    else if (!RESTRICTED_VOLUMES.includes(type)) restricted.push(`${p.name}: ${type} volume ${v.name}`);
  }
  for (const c of p.containers) {
    const sc = c.securityContext ?? {};
    const at = `${p.name}/${c.name}`;
    if (sc.privileged) baseline.push(`${at}: privileged`);
    for (const cap of sc.capabilities?.add ?? [])
      (BASELINE_CAPABILITIES.has(cap) ? restricted : baseline).push(`${at}: adds ${cap}`);
    if (sc.allowPrivilegeEscalation !== false) restricted.push(`${at}: allowPrivilegeEscalation not false`);
    if (sc.runAsNonRoot !== true || sc.runAsUser === 0) restricted.push(`${at}: may run as root`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) restricted.push(`${at}: does not drop ALL capabilities`);
    const seccomp = sc.seccompProfile?.type ?? p.podSeccomp;
    if (seccomp === "Unconfined") baseline.push(`${at}: seccomp Unconfined`);
    else if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") restricted.push(`${at}: no seccomp profile`);
  }
  return { baseline, restricted };
}

/** The strictest level every pod meets, with the reasons it is not stricter. */
export function namespaceLevel(pods: readonly PodShape[]): { level: PodSecurityLevel; because: string[] } {
  const all = pods.map(podViolations);
  const baseline = all.flatMap((v) => v.baseline);
  if (baseline.length > 0) return { level: PodSecurityLevel.Privileged, because: baseline };
  const restricted = all.flatMap((v) => v.restricted);
  if (restricted.length > 0) return { level: PodSecurityLevel.Baseline, because: restricted };
  return { level: PodSecurityLevel.Restricted, because: [] };
}
