/**
 * Deterministic, AWS-shaped placeholder values (ids, ARNs, auto-generated names, a kubeconfig), each a
 * pure function of what it names, so two renders of the same config are byte-identical. The mocks
 * answer with them, and the manifests name unnamed objects the way the provider would.
 */
import { createHash } from "crypto";

/** The account id every placeholder ARN uses (AWS's documentation account). */
export const PLACEHOLDER_ACCOUNT = "123456789012";

/** Deterministic lower-case hex of any JSON-able value, `len` characters (max 64). */
export function hexOf(value: unknown, len = 64): string {
  return createHash("sha256").update(stableJson(value)).digest("hex").slice(0, len);
}

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** An EC2-style id: `<prefix>-` + 17 hex characters. */
export function ec2Id(prefix: string, type: string, name: string): string {
  return `${prefix}-0${hexOf([type, name], 16)}`;
}

/** The physical name a provider would auto-generate: logical name + 7 hex characters. */
export function autoName(type: string, name: string): string {
  return `${name}-${hexOf([type, name], 7)}`;
}

/** A kubeconfig for an EKS cluster that authenticates with `aws eks get-token`, as EKS prints it. */
export function placeholderKubeconfig(clusterName: string, endpoint: string, region: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: clusterName,
        cluster: {
          server: endpoint,
          "certificate-authority-data": Buffer.from(`placeholder-ca:${clusterName}`).toString("base64"),
        },
      },
    ],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user: clusterName } }],
    "current-context": clusterName,
    users: [
      {
        name: clusterName,
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "aws",
            args: ["eks", "get-token", "--cluster-name", clusterName, "--region", region],
          },
        },
      },
    ],
  };
}

/** A placeholder ARN in the placeholder account (`global`: IAM-style, no region). */
export const arn = (region: string, service: string, resource: string, global = false): string =>
  `arn:aws:${service}:${global ? "" : region}:${PLACEHOLDER_ACCOUNT}:${resource}`;
