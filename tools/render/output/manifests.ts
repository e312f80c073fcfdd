/**
 * What the program would send to Kubernetes and to BuildKit, as files: one Kubernetes object per
 * YAML file, Helm values per release, and the image build description. Pure functions over captured
 * resources.
 */
import YAML from "yaml";
import { autoName } from "../capture/mocks";
import { SECRET } from "../../_shared/stackfile";

/** The fields of a captured resource this module reads. */
export interface ManifestSource {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly redactedInputs: Record<string, unknown>;
}

/** A file to write, relative to the stack's output directory. */
export interface RenderedFile {
  readonly path: string;
  readonly content: string;
}

/** Kubernetes object types that are not objects sent to the API server. */
function isKubernetesObject(type: string): boolean {
  if (!type.startsWith("kubernetes:")) return false;
  return (
    !type.startsWith("kubernetes:helm.sh/") &&
    !type.startsWith("kubernetes:yaml") &&
    !type.startsWith("kubernetes:kustomize")
  );
}

/** Apply order: cluster-scoped and referenced objects before the objects that use them. */
const KIND_ORDER = [
  "Namespace",
  "CustomResourceDefinition",
  "StorageClass",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "Secret",
  "ConfigMap",
  "PersistentVolumeClaim",
  "Service",
  "Deployment",
  "DaemonSet",
  "StatefulSet",
];

function kindRank(kind: string): number {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
}

type Obj = Record<string, unknown>;

/** The Secret with every value replaced by a `stringData` placeholder, so it stays schema-valid. */
function placeholderSecret(inputs: Obj, redacted: Obj): Obj {
  const keys = new Set<string>();
  for (const field of ["data", "stringData"]) {
    const v = inputs[field];
    if (v && typeof v === "object") for (const k of Object.keys(v)) keys.add(k);
  }
  const { data: _d, stringData: _s, ...rest } = redacted;
  return { ...rest, stringData: Object.fromEntries([...keys].sort().map((k) => [k, SECRET])) };
}

/** The Kubernetes object a captured resource stands for, with a name even when auto-named. */
export function kubernetesObject(r: ManifestSource): Obj {
  const base = r.redactedInputs as Obj;
  const obj = base.kind === "Secret" ? placeholderSecret(r.inputs, base) : { ...base };
  const metadata = { ...((obj.metadata as Obj | undefined) ?? {}) };
  if (!metadata.name) metadata.name = autoName(r.type, r.name);
  const { apiVersion, kind, ...rest } = obj;
  return { apiVersion, kind, metadata, ...Object.fromEntries(Object.entries(rest).filter(([k]) => k !== "metadata")) };
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9.-]+/g, "-");
}

/** One `manifests/NN-<kind>-<namespace>-<name>.yaml` per Kubernetes object, in apply order. */
export function manifestFiles(resources: readonly ManifestSource[]): RenderedFile[] {
  const objects = resources.filter((r) => isKubernetesObject(r.type)).map(kubernetesObject);
  objects.sort((a, b) => {
    const ma = a.metadata as Obj;
    const mb = b.metadata as Obj;
    return (
      kindRank(String(a.kind)) - kindRank(String(b.kind)) ||
      String(a.kind).localeCompare(String(b.kind)) ||
      String(ma.namespace ?? "").localeCompare(String(mb.namespace ?? "")) ||
      String(ma.name).localeCompare(String(mb.name))
    );
  });
  return objects.map((o, i) => {
    const md = o.metadata as Obj;
    const ns = md.namespace ? `${slug(String(md.namespace))}-` : "";
    const path = `manifests/${String(i).padStart(2, "0")}-${slug(String(o.kind))}-${ns}${slug(String(md.name))}.yaml`;
    return { path, content: YAML.stringify(o, { sortMapEntries: false, lineWidth: 0 }) };
  });
}

/** A chart given as a tarball URL (`.../dynamo-platform-1.0.1.tgz`) by its name, with the URL kept. */
export function chartOf(chart: string, version: string): { name: string; url?: string } {
  if (!/^[a-z]+:\/\//.test(chart)) return { name: chart };
  const file = chart.slice(chart.lastIndexOf("/") + 1).replace(/\.tgz$/, "");
  return { name: version && file.endsWith(`-${version}`) ? file.slice(0, -version.length - 1) : file, url: chart };
}

/** `helm/<release>.values.yaml` per Helm release, headed by the chart coordinates. */
export function helmFiles(resources: readonly ManifestSource[]): RenderedFile[] {
  const releases = resources.filter(
    (r) => r.type === "kubernetes:helm.sh/v3:Release" || r.type === "kubernetes:helm.sh/v4:Chart",
  );
  return releases
    .map((r) => {
      const i = r.redactedInputs as Obj;
      const release = String(i.name ?? r.name);
      const repo = (i.repositoryOpts as Obj | undefined)?.repo ?? "";
      const chart = chartOf(String(i.chart ?? ""), String(i.version ?? ""));
      const header = [
        `# Helm release ${release} (${r.type.endsWith("Release") ? "helm.v3.Release" : "helm.v4.Chart"} ${r.name})`,
        `# chart: ${chart.name}  version: ${String(i.version ?? "")}${repo ? `  repo: ${String(repo)}` : ""}${chart.url ? `  url: ${chart.url}` : ""}`,
        `# namespace: ${String(i.namespace ?? "default")}`,
      ];
      const values = (i.values as Obj | undefined) ?? {};
      return {
        path: `helm/${slug(release)}.values.yaml`,
        content: `${header.join("\n")}\n${YAML.stringify(values, { lineWidth: 0 })}`,
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** Facts about the image that the build resource alone does not show. */
export interface ImageFacts {
  readonly cudaArchs: readonly string[];
  readonly cudaToolkit: string;
  readonly ref?: string;
  /** The image component's plan (paths relative to the package root), when it exposes one. */
  readonly plan?: unknown;
}

const IMAGE_FIELDS = [
  "dockerfile",
  "context",
  "target",
  "platforms",
  "buildArgs",
  "tags",
  "push",
  "buildOnPreview",
  "cacheFrom",
  "cacheTo",
  "builder",
  "exports",
  "labels",
  "noCache",
  "pull",
  "registries",
  "secrets",
  "ssh",
  "network",
];

/** `image.json`: the build as BuildKit would get it, plus the resolved arch list and the ref. */
export function imageJson(resources: readonly ManifestSource[], facts: ImageFacts): Obj {
  const builds = resources.filter((r) => r.type === "docker-build:index:Image");
  const base = {
    cudaArchs: [...facts.cudaArchs],
    cudaToolkit: facts.cudaToolkit,
    ...(facts.ref ? { ref: facts.ref } : {}),
    ...(facts.plan ? { plan: facts.plan } : {}),
  };
  if (builds.length === 0) return { build: false, ...base };
  // The build args are in the plan already; repeated only where the resource's differ from it.
  const planArgs = JSON.stringify((facts.plan as Obj | undefined)?.buildArgs ?? null);
  const describe = (r: ManifestSource) => {
    const i = r.redactedInputs as Obj;
    const fields = IMAGE_FIELDS.filter(
      (f) => i[f] !== undefined && !(f === "buildArgs" && JSON.stringify(i[f]) === planArgs),
    );
    return { name: r.name, ...Object.fromEntries(fields.map((f) => [f, i[f]])) };
  };
  return { build: true, ...base, ...(builds.length === 1 ? describe(builds[0]) : { images: builds.map(describe) }) };
}
