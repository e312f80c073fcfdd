/**
 * Image reference string helpers (pure; table-tested like awsx's `removeTagFromRef`).
 * A reference is `[registry/]repository[:tag][@sha256:<64 hex>]`; a registry is recognised by a `.` or
 * `:` in the first path component, or by being `localhost`.
 */

/** The parts of an image reference. */
export interface ImageRefParts {
  /** Registry host (with port), or undefined for Docker Hub shorthand. */
  readonly registry?: string;
  /** Repository path inside the registry, e.g. `team/dynamo`. */
  readonly repository: string;
  readonly tag?: string;
  /** `sha256:<64 hex>` */
  readonly digest?: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/**
 * The grammar of distribution/reference (`regexp.go`; tests/contracts/facts/image-reference.json): a registry is a
 * host of DNS-style components (or a bracketed IPv6 address) with an optional port; a repository is lower-case
 * path components joined by `/`, each alphanumeric runs split by one `.`, one or two `_`, or any number of `-`;
 * and the whole name (registry included) is at most 255 characters.
 */
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const REGISTRY = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`);
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const REPOSITORY = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const NAME_TOTAL_LENGTH_MAX = 255;

/** Splits a reference into registry, repository, tag and digest; undefined when it is not one. */
export function parseImageRef(ref: string): ImageRefParts | undefined {
  if (typeof ref !== "string" || ref === "" || /\s/.test(ref)) return undefined;
  const at = ref.indexOf("@");
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  if (digest !== undefined && !DIGEST.test(digest)) return undefined;
  const name = at >= 0 ? ref.slice(0, at) : ref;
  const slash = name.indexOf("/");
  const first = slash >= 0 ? name.slice(0, slash) : "";
  const hasRegistry = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  const registry = hasRegistry ? first : undefined;
  const rest = hasRegistry ? name.slice(slash + 1) : name;
  const colon = rest.lastIndexOf(":");
  const tag = colon >= 0 ? rest.slice(colon + 1) : undefined;
  const repository = colon >= 0 ? rest.slice(0, colon) : rest;
  if (tag !== undefined && !TAG.test(tag)) return undefined;
  if (registry !== undefined && !REGISTRY.test(registry)) return undefined;
  if (!REPOSITORY.test(repository) || name.length - (tag === undefined ? 0 : tag.length + 1) > NAME_TOTAL_LENGTH_MAX)
    return undefined;
  return {
    ...(registry ? { registry } : {}),
    repository,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest ? { digest } : {}),
  };
}

/** Reassembles parts into a reference string. */
export function formatImageRef(p: ImageRefParts): string {
  return `${p.registry ? `${p.registry}/` : ""}${p.repository}${p.tag !== undefined ? `:${p.tag}` : ""}${p.digest ? `@${p.digest}` : ""}`;
}

/** True when `ref` names its image by content digest (`...@sha256:<64 hex>`). */
export function isDigestPinned(ref: string): boolean {
  return parseImageRef(ref)?.digest !== undefined;
}

/** `ref` without its tag (digest kept): `repo:tag@sha256:x` -> `repo@sha256:x`, `host:5000/r:t` -> `host:5000/r`. */
export function removeTagFromRef(ref: string): string {
  const p = parseImageRef(ref);
  if (!p) return ref;
  const { tag: _tag, ...rest } = p;
  return formatImageRef(rest);
}

/** The digest-pinned reference `repositoryUrl@digest` (any tag on the URL dropped). */
export function withDigest(repositoryUrl: string, digest: string): string {
  if (!DIGEST.test(digest)) throw new Error(`not an image digest: ${JSON.stringify(digest)}`);
  const p = parseImageRef(repositoryUrl);
  if (!p || p.digest) throw new Error(`not a repository URL: ${JSON.stringify(repositoryUrl)}`);
  return formatImageRef({ ...(p.registry ? { registry: p.registry } : {}), repository: p.repository, digest });
}

/** `repositoryUrl:tag`. */
export function withTag(repositoryUrl: string, tag: string): string {
  if (!TAG.test(tag)) throw new Error(`not an image tag: ${JSON.stringify(tag)}`);
  return `${removeTagFromRef(repositoryUrl)}:${tag}`;
}

/** Where an ECR repository URL lives: account (registry id), region and registry host. */
export interface EcrRegistry {
  readonly registryId: string;
  readonly region: string;
  readonly address: string;
}

/** The ECR registry of `url` (`<account>.dkr.ecr.<region>.amazonaws.com[.cn]/<repo>`), or undefined. */
export function ecrRegistryOf(url: string): EcrRegistry | undefined {
  const m = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?(?:\/|$)/.exec(url);
  if (!m) return undefined;
  return { registryId: m[1], region: m[2], address: url.split("/")[0] };
}

/** The registry host of a repository URL (`docker.io` for Docker Hub shorthand). */
export function registryOf(url: string): string {
  return parseImageRef(url)?.registry ?? "docker.io";
}

/**
 * An ECR repository name from a Pulumi resource name: lower case, `[a-z0-9._/-]`, starting with a letter or
 * digit, at most 256 characters (ECR's rules).
 */
export function ecrRepositoryName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9._/-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/[-_.]+$/, "");
  return (cleaned || "dynamo-efa").slice(0, 256);
}
