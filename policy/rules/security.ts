/**
 * Security and data-safety policies: EKS secrets encryption and endpoint exposure, the HF token kept
 * secret (and complete: F9), no privileged worker sharing a node, and data-holding resources retained.
 */
import { resourcePolicy } from "./_policy";
import { coveredSpaces } from "../../components/_shared/cidr";
import { INSTANCES } from "../../components/catalog/instances";
import { containers, envOf, gpusOf, graphServices, instanceTypeOf, isWorker, requestsEfa } from "./_predicates";
import { isUnknownValue, rawProps } from "./_unknowns";
import { KeyMapProps, ResourceType } from "./_resources";
import { PlanService } from "./_dgd";
import { show } from "../../components/_shared/problems";

const present = (v: unknown) => isUnknownValue(v) || (typeof v === "string" && v !== "");

/** 16. EKS encrypts Kubernetes secrets with a KMS key (both cluster shapes). */
export const eksSecretsEncrypted = resourcePolicy({
  name: "eks-secrets-encrypted",
  description: "EKS clusters encrypt Kubernetes secrets with a KMS key (envelope encryption).",
  types: [ResourceType.EksCluster, ResourceType.AwsEksCluster],
  defaults: {},
  check: (r, args, report) => {
    if (r.type === ResourceType.EksCluster) {
      if (!present(rawProps(r.props)?.encryptionConfigKeyArn))
        report(
          `EKS cluster ${show(args.name)} does not encrypt Kubernetes secrets; set encryptionConfigKeyArn to a KMS key ARN`,
        );
      return;
    }
    const ec = rawProps(r.props)?.encryptionConfig;
    if (isUnknownValue(ec)) return;
    const covers = Array.isArray(ec?.resources) && ec.resources.includes("secrets");
    if (!present(ec?.provider?.keyArn) || !covers) {
      report(
        `EKS cluster ${show(args.name)} does not encrypt Kubernetes secrets (encryptionConfig ${show(ec)}); set encryptionConfig: { provider: { keyArn: <KMS key ARN> }, resources: ["secrets"] }`,
      );
    }
  },
});

/** 17. (advisory) The EKS API endpoint is not open to the whole internet. */
export const eksEndpointNotWorldOpen = resourcePolicy({
  name: "eks-endpoint-not-world-open",
  description: "The EKS API endpoint is private, or public only to listed CIDRs that are not the whole internet.",
  enforcementLevel: "advisory",
  types: [ResourceType.EksCluster, ResourceType.AwsEksCluster],
  defaults: { worldCidrs: ["0.0.0.0/0", "::/0"] },
  check: (r, args, report, cfg) => {
    const c = r.type === ResourceType.EksCluster ? rawProps(r.props) : rawProps(r.props)?.vpcConfig;
    const isPublic = c?.endpointPublicAccess;
    if (isPublic === false || isUnknownValue(isPublic) || isUnknownValue(c?.publicAccessCidrs)) return;
    const cidrs: readonly unknown[] =
      Array.isArray(c?.publicAccessCidrs) && c.publicAccessCidrs.length > 0 ? c.publicAccessCidrs : ["0.0.0.0/0"];
    // Coverage, not string equality: "0.0.0.0/00", or "0.0.0.0/1" with "128.0.0.0/1", is the whole internet too.
    const open = coveredSpaces(cidrs, cfg.worldCidrs);
    if (open.length > 0) {
      const why =
        Array.isArray(c?.publicAccessCidrs) && c.publicAccessCidrs.length > 0
          ? `publicAccessCidrs ${show(c.publicAccessCidrs)} cover ${open.join(", ")}`
          : `public access is ${isPublic === true ? "on" : "on by default"} with no publicAccessCidrs (AWS defaults to 0.0.0.0/0)`;
      report(
        `EKS cluster ${show(args.name)} exposes its API endpoint to the whole internet (${why}); set endpointPublicAccess: false for a private endpoint, or list only your own CIDRs in publicAccessCidrs`,
      );
    }
  },
});

const FIELDS = ["stringData", "data"] as const;

/** 18. The HF token lives only in a Kubernetes Secret (marked secret, with both key names: F9). */
export const hfTokenIsSecret = resourcePolicy({
  name: "hf-token-is-secret",
  description:
    "The Hugging Face token is never a literal env value or ConfigMap entry, and lives in a Secret marked secret that carries both key names.",
  types: [ResourceType.Dgd, ResourceType.ConfigMap, ResourceType.Secret],
  defaults: { tokenKeys: ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"] },
  check: (r, args, report, cfg) => {
    if (r.type === ResourceType.Dgd) {
      const raw = rawProps(r.props);
      for (const s of graphServices(raw, args.name)) {
        for (const e of envOf(raw, s).filter((x) => cfg.tokenKeys.includes(x.name) && x.value !== undefined)) {
          report(
            `${s.label} sets ${e.name} as a literal value in ${e.where}, so the token is stored in clear text in the plan and the pod spec; reference the HF secret with envFromSecret or valueFrom.secretKeyRef`,
          );
        }
      }
      return;
    }
    const raw = rawProps(r.props);
    const kind = r.type === ResourceType.ConfigMap ? "ConfigMap" : "Secret";
    const keysIn = (f: keyof KeyMapProps) => {
      const v = raw?.[f];
      return v && typeof v === "object" ? Object.keys(v) : [];
    };
    if (kind === "ConfigMap") {
      for (const k of [...keysIn("data"), ...keysIn("binaryData")].filter((k) => cfg.tokenKeys.includes(k))) {
        report(
          `ConfigMap ${show(args.name)} holds ${k}, and ConfigMaps are not secret; put the token in a Kubernetes Secret created from a Pulumi secret`,
        );
      }
      return;
    }
    for (const f of FIELDS) {
      const keys = keysIn(f);
      if (!keys.some((k) => cfg.tokenKeys.includes(k))) continue;
      const missing = cfg.tokenKeys.filter((k) => !keys.includes(k));
      if (missing.length > 0)
        report(
          `Secret ${show(args.name)} holds the HF token in ${f} without ${missing.join(", ")}; tools read one name or the other (F9): set ${cfg.tokenKeys.join(" and ")} to the same token`,
        );
      const secretPaths: readonly string[] = (args.opts as { secretPaths?: readonly string[] }).secretPaths ?? [];
      const marked =
        args.opts.additionalSecretOutputs.includes(f) ||
        secretPaths.includes(f) ||
        keys.filter((k) => cfg.tokenKeys.includes(k)).every((k) => secretPaths.includes(`${f}.${k}`));
      if (!marked)
        report(
          `Secret ${show(args.name)} holds the HF token in ${f} without marking it secret (additionalSecretOutputs lacks ${show(f)}); create it with @pulumi/kubernetes' Secret from a Pulumi secret so the token is encrypted in state`,
        );
    }
  },
});

/**
 * Whether a worker's main container owns its node: it requests every GPU of the instance it is pinned
 * to, so no other GPU pod can land beside it. Undefined reason when it does; otherwise why not.
 */
function sharesNode(svc: PlanService): string | undefined {
  const type = instanceTypeOf(svc);
  const row = type === undefined ? undefined : INSTANCES.get(type);
  if (!row)
    return `it is not pinned to a known instance type (${show(type)}), so nothing proves it is alone on its node`;
  const gpus = gpusOf(svc);
  return gpus >= row.gpuCount
    ? undefined
    : `it requests ${gpus} of the ${row.gpuCount} GPUs of a ${row.name}, so other GPU pods share its node`;
}

const SHARED_FIX =
  "a privileged container sees every GPU and EFA device of the node: co-located engines all take cuda:0 and NIXL opens every EFA device (kubernetes/kubernetes#81256). Drop privileged and add capabilities IPC_LOCK (the EFA and NVIDIA device plugins mount the allocated devices), as upstream Dynamo's EKS example does";

/** 19. No container runs privileged, except an EFA worker's main container that owns its whole node. */
export const privilegedOnlyForEfaWorkers = resourcePolicy({
  name: "privileged-only-for-efa-workers",
  description:
    "No container runs privileged or adds admin capabilities, except the main container of an EFA worker that requests every GPU of its node (a privileged container sees every device of the node).",
  types: [ResourceType.Dgd],
  defaults: { adminCapabilities: ["SYS_ADMIN", "ALL"] },
  check: ({ props }, args, report, cfg) => {
    const raw = rawProps(props);
    for (const s of graphServices(raw, args.name)) {
      const efaWorker = isWorker(s.svc) && requestsEfa(s.svc);
      containers(s.svc).forEach((c, i) => {
        const sc = c?.securityContext ?? {};
        const where = i === 0 ? "its main container" : `container ${show(c?.name)}`;
        const caps: readonly unknown[] = Array.isArray(sc.capabilities?.add) ? sc.capabilities.add : [];
        const admin = caps.filter((x) => typeof x === "string" && cfg.adminCapabilities.includes(x));
        if (efaWorker && i === 0) {
          const elevated = [...(sc.privileged === true ? ["privileged"] : []), ...admin.map((x) => `capability ${x}`)];
          const shared = elevated.length > 0 ? sharesNode(s.svc) : undefined;
          if (shared)
            report(`${s.label} runs its main container with ${elevated.join(", ")} and ${shared}; ${SHARED_FIX}`);
          return;
        }
        const why = efaWorker
          ? "that is not the EFA worker's main container"
          : isWorker(s.svc)
            ? "the worker requests no EFA"
            : "the service is not an EFA worker";
        if (sc.privileged === true)
          report(
            `${s.label} runs ${where} privileged but ${why}; nothing here needs privileged (EFA workers need only IPC_LOCK): remove securityContext.privileged`,
          );
        if (admin.length > 0)
          report(
            `${s.label} adds capabilities ${admin.join(", ")} to ${where} but ${why}; remove them from securityContext.capabilities.add`,
          );
      });
    }
  },
});

/** 20. Data-holding resources survive `pulumi destroy` or a replacement. */
export const statefulResourcesRetained = resourcePolicy({
  name: "stateful-resources-retained",
  description:
    "Data-holding resources (ECR repositories, model-cache volumes, EFS file systems) are protected or retained on delete.",
  types: [ResourceType.EcrRepository, ResourceType.Pvc, ResourceType.EfsFileSystem],
  defaults: { exemptEcrPattern: "(^|[-_/])(build-?)?cache$" },
  schema: { properties: { exemptEcrPattern: { type: "string", default: "(^|[-_/])(build-?)?cache$" } } },
  check: (r, args, report, cfg) => {
    const raw = rawProps(r.props);
    const name = typeof raw?.name === "string" && !isUnknownValue(raw.name) ? raw.name : args.name;
    // A build-cache repository holds only rebuildable layers (ECR repositories only: a model-cache PVC is data).
    if (
      args.type === ResourceType.EcrRepository &&
      [name, args.name].some((n) => new RegExp(cfg.exemptEcrPattern).test(n))
    )
      return;
    const opts = args.opts as typeof args.opts & { retainOnDelete?: boolean };
    if (opts.protect || opts.retainOnDelete === true) return;
    // The policy server does not send retainOnDelete; only the offline plan records it.
    if (!("retainOnDelete" in opts))
      args.notApplicable("retainOnDelete is not visible to the policy server; checked by the offline render");
    const kind =
      args.type === ResourceType.EcrRepository
        ? "ECR repository"
        : args.type === ResourceType.Pvc
          ? "PersistentVolumeClaim"
          : "EFS file system";
    report(
      `${kind} ${show(args.name)} holds data but is neither protected nor retained on delete, so a destroy or replacement loses it; set the resource option retainOnDelete: true (or protect: true)`,
    );
  },
});

/** Policies of this module, in pack order. */
export const securityPolicies = [
  eksSecretsEncrypted,
  eksEndpointNotWorldOpen,
  hfTokenIsSecret,
  privilegedOnlyForEfaWorkers,
  statefulResourcesRetained,
];
