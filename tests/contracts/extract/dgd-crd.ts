/**
 * Extracts the structural field tree of the DynamoGraphDeployment CRD (one served version) from a checkout of
 * ai-dynamo/dynamo: every field path with its type, enums, and where the API server keeps unknown fields
 * (x-kubernetes-preserve-unknown-fields, embedded resources). Descriptions and validation rules are dropped.
 *
 *   npx tsx tests/contracts/extract/dgd-crd.ts <dynamo checkout> --ref v1.0.1 [--commit <sha>] [--version v1alpha1] \
 *     > tests/contracts/facts/dgd-crd.json
 *
 * Reads the copy the dynamo-platform chart installs (deploy/helm/charts/platform/components/operator/crds/) and
 * checks it is identical to the operator's own (deploy/operator/config/crd/bases/), which the operator image
 * applies on upgrade. Where the chart carries no copy (later charts: the operator's `crd-apply` init container
 * applies the CRDs from its image), the operator's copy is the one installed and is read instead.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import { checkoutArgs, withNotes, printFacts, readText, today } from "./_checkout";

export const CHART_CRD = "deploy/helm/charts/platform/components/operator/crds/nvidia.com_dynamographdeployments.yaml";
export const OPERATOR_CRD = "deploy/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml";

/** One schema node, compacted: `t` type, `p` properties, `a` additionalProperties (map values), `i` array items. */
export interface FieldNode {
  readonly t?: "object" | "array" | "string" | "integer" | "number" | "boolean" | "int-or-string";
  readonly p?: Readonly<Record<string, FieldNode>>;
  readonly a?: FieldNode | true;
  readonly i?: FieldNode;
  readonly e?: readonly (string | number | boolean)[];
  /** x-kubernetes-preserve-unknown-fields: unknown fields below are kept, not pruned. */
  readonly u?: true;
  /** x-kubernetes-embedded-resource: apiVersion/kind/metadata are implied. */
  readonly r?: true;
  /** Required properties. */
  readonly q?: readonly string[];
}

/** The OpenAPI v3 keywords of a CRD schema node that the compaction reads (the rest is dropped). */
interface OpenApiSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: boolean | OpenApiSchema;
  readonly items?: OpenApiSchema;
  readonly enum?: unknown;
  readonly required?: unknown;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
}

/** The parts of a CRD document the extractor reads. */
interface CrdDocument {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly {
      readonly name: string;
      readonly storage?: boolean;
      readonly schema: { readonly openAPIV3Schema: OpenApiSchema };
    }[];
  };
}

function compact(s: OpenApiSchema): FieldNode {
  const n: Record<string, unknown> = {};
  if (s["x-kubernetes-int-or-string"]) n.t = "int-or-string";
  else if (s.type) n.t = s.type;
  const props = s.properties;
  if (props)
    n.p = Object.fromEntries(
      Object.keys(props)
        .sort()
        .map((k) => [k, compact(props[k])]),
    );
  if (s.additionalProperties !== undefined && s.additionalProperties !== false)
    n.a = s.additionalProperties === true ? true : compact(s.additionalProperties);
  if (s.items) n.i = compact(s.items);
  if (Array.isArray(s.enum)) n.e = s.enum;
  if (s["x-kubernetes-preserve-unknown-fields"]) n.u = true;
  if (s["x-kubernetes-embedded-resource"]) n.r = true;
  if (Array.isArray(s.required) && s.required.length > 0) n.q = [...s.required].sort();
  return n as FieldNode;
}

/** Counts the field paths of a tree (each property, map value and array item is one). */
export function countFields(n: FieldNode): number {
  return (
    Object.values(n.p ?? {}).reduce((k, c) => k + 1 + countFields(c), 0) +
    (n.a && n.a !== true ? countFields(n.a) : 0) +
    (n.i ? countFields(n.i) : 0)
  );
}

/** The CRD file the chart installs: its own copy, else (no copy in the chart) the operator's. */
export function installedCrdPath(root: string): string {
  return existsSync(join(root, CHART_CRD)) ? CHART_CRD : OPERATOR_CRD;
}

export function extractCrd(
  root: string,
  version: string,
): { group: string; kind: string; version: string; schema: FieldNode; storage: string } {
  const path = installedCrdPath(root);
  const text = readText(root, path);
  if (path === CHART_CRD && existsSync(join(root, OPERATOR_CRD)) && readText(root, OPERATOR_CRD) !== text) {
    throw new Error(`${CHART_CRD} differs from ${OPERATOR_CRD}: decide which one the pinned operator installs`);
  }
  const crd: CrdDocument = YAML.parse(text);
  const v = crd.spec.versions.find((x) => x.name === version);
  if (!v) throw new Error(`${path} has no version ${version} (has ${crd.spec.versions.map((x) => x.name).join(", ")})`);
  const storage = crd.spec.versions.find((x) => x.storage)?.name ?? version;
  return {
    group: crd.spec.group,
    kind: crd.spec.names.kind,
    version,
    schema: compact(v.schema.openAPIV3Schema),
    storage,
  };
}

export const RUNTIME_VERSION_GO = "deploy/operator/internal/runtimeversion/runtimeversion.go";
export const SHARED_SPEC_GO = "deploy/operator/api/v1beta1/dynamocomponentdeployment_types.go";
export const ADMISSION_GO = "deploy/operator/internal/webhook/validation/shared_helpers.go";

/** The v1beta1 admission rule for `runtimeVersionOverride`, read from the operator's Go source (absent before 1.4). */
export interface RuntimeVersionRule {
  /** The image tag (before any `@digest`) must match this, or the component needs an override. */
  readonly imageTagPattern: string;
  /** The override itself: a bare MAJOR.MINOR.PATCH (the field's kubebuilder Pattern). */
  readonly overridePattern: string;
  /** The webhook's message when the override is missing. */
  readonly requiredMessage: string;
}

export function extractRuntimeVersionRule(root: string): RuntimeVersionRule | undefined {
  if (!existsSync(join(root, RUNTIME_VERSION_GO))) return undefined;
  const one = (file: string, re: RegExp) => {
    const m = re.exec(readText(root, file));
    if (!m) throw new Error(`${file}: ${re} not found`);
    return m[1];
  };
  return {
    imageTagPattern: one(RUNTIME_VERSION_GO, /imageTagPattern = regexp\.MustCompile\(`([^`]+)`\)/),
    overridePattern: one(
      SHARED_SPEC_GO,
      /\+kubebuilder:validation:Pattern=`([^`]+)`\s*\n\s*\/\/ \+optional\s*\n\s*RuntimeVersionOverride/,
    ),
    requiredMessage: one(ADMISSION_GO, /runtimeVersionOverrideRequiredMessage = "([^"]+)"/),
  };
}

function main(): void {
  const argv = process.argv.slice(2);
  const args = checkoutArgs(argv, "dgd-crd.ts");
  const vi = argv.indexOf("--version");
  const version = vi >= 0 ? argv[vi + 1] : "v1alpha1";
  const rule = extractRuntimeVersionRule(args.root);
  const facts = { ...extractCrd(args.root, version), ...(rule ? { runtimeVersionOverride: rule } : {}) };
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: args.ref,
      commit: args.commit,
      paths: [
        ...(installedCrdPath(args.root) === CHART_CRD ? [CHART_CRD, OPERATOR_CRD] : [OPERATOR_CRD]),
        ...(rule ? [RUNTIME_VERSION_GO, SHARED_SPEC_GO, ADMISSION_GO] : []),
      ],
      extracted: today(),
      extractor: "tests/contracts/extract/dgd-crd.ts",
      notes: withNotes(`${facts.kind}.${facts.group}/${version}: ${countFields(facts.schema)} field paths.`, args),
    },
    facts,
  );
}

if (require.main === module) main();
