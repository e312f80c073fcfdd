/**
 * Turns Pulumi's serialized property values (the wire form the engine receives) back into plain
 * JSON twice: once with secrets in the clear (for in-memory checks) and once with every secret value
 * replaced by `"[secret]"` (for anything written to disk). Pure.
 */

import { SECRET } from "../../_shared/stackfile";

/** What a value unknown at plan time becomes on disk. */
export const UNKNOWN = "[unknown]";

// Wire signatures, from @pulumi/pulumi `runtime/rpc.js`.
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
const ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17";
const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";
const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Both views of a serialized value, and where its secrets were. */
export interface Deserialized {
  readonly plain: unknown;
  readonly redacted: unknown;
  readonly secretPaths: string[];
}

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

function walk(
  v: unknown,
  path: string,
  secretPaths: string[],
  inSecret: boolean,
): { plain: unknown; redacted: unknown } {
  if (v === UNKNOWN_VALUE) return { plain: UNKNOWN, redacted: UNKNOWN };
  if (v === null || typeof v !== "object") return { plain: v, redacted: inSecret ? SECRET : v };
  if (Array.isArray(v)) {
    const parts = v.map((x, i) => walk(x, childPath(path, i), secretPaths, inSecret));
    return { plain: parts.map((p) => p.plain), redacted: parts.map((p) => p.redacted) };
  }
  const o = v as Record<string, unknown>;
  switch (o[SIG_KEY]) {
    case SECRET_SIG: {
      secretPaths.push(path || "(root)");
      const inner = walk(o.value, path, [], true);
      return { plain: inner.plain, redacted: SECRET };
    }
    case RESOURCE_SIG:
      return { plain: o.urn, redacted: inSecret ? SECRET : o.urn };
    case ASSET_SIG:
    case ARCHIVE_SIG: {
      const ref = o.path ?? o.uri ?? "[asset]";
      return { plain: ref, redacted: inSecret ? SECRET : ref };
    }
    case OUTPUT_SIG: {
      if (o.secret) secretPaths.push(path || "(root)");
      if (!("value" in o)) return { plain: UNKNOWN, redacted: UNKNOWN };
      const inner = walk(o.value, path, secretPaths, inSecret || o.secret === true);
      return o.secret ? { plain: inner.plain, redacted: SECRET } : inner;
    }
    default: {
      const plain: Record<string, unknown> = {};
      const redacted: Record<string, unknown> = {};
      for (const k of Object.keys(o)) {
        const r = walk(o[k], childPath(path, k), secretPaths, inSecret);
        plain[k] = r.plain;
        redacted[k] = r.redacted;
      }
      return { plain, redacted };
    }
  }
}

/** Deserializes a wire value (e.g. a `RegisterResourceRequest` object) into plain and redacted JSON. */
export function fromSerialized(value: unknown): Deserialized {
  const secretPaths: string[] = [];
  const { plain, redacted } = walk(value, "", secretPaths, false);
  return { plain, redacted, secretPaths: secretPaths.sort() };
}
