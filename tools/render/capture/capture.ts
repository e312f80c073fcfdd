/**
 * The capture engine: runs a program function under Pulumi mocks, inside a real root stack, and
 * records every resource the program registers with what the engine would be told about it.
 *
 * How (docs/ARCHITECTURE.md#pulumi-without-the-cli, checked against @pulumi/pulumi 3.248.0 `runtime/stack.js`, `resource.js`,
 * `runtime/dependsOn.js`):
 * - `runInPulumiStack(init)` creates the root `pulumi:pulumi:Stack` component and calls `init` with
 *   it set as the stack resource; `registerStackTransformation` called first inside `init` appends to
 *   that stack's transformations, which every later `Resource` constructor runs with
 *   `{ resource, type, name, props, opts }` before it inherits anything from its parent.
 * - `opts.dependsOn` is resolved with the SDK's own `gatherExplicitDependencies`; implicit
 *   dependencies are the resources behind every `Output` in `props` (the SDK's `getAllResources`,
 *   the same set `serializeResourceProperties` sends as `propertyDependencies`) plus resource
 *   references passed as values.
 * - `protect` is inherited from the parent after transformations run, so it is read from the
 *   constructed resource (`__protect`); `retainOnDelete`, `ignoreChanges` and `additionalSecretOutputs` are not
 *   inherited and come from `opts`.
 * - Inputs are read from the monitor's `RegisterResourceRequest` (after serialization), so secret
 *   values keep their secret marker and are replaced by `"[secret]"` in the redacted view.
 *
 * Mocks and the root stack are process-global: call `capture` once at a time (it serializes itself).
 */
import * as pulumi from "@pulumi/pulumi";
import { getAllResources } from "@pulumi/pulumi/output";
import type { ProgramRun } from "../../../program/run";
import {
  dependsOn,
  isProtected,
  outputPromise,
  ReadResourceRequest,
  RegisterResourceRequest,
  settings,
  state,
} from "./pulumi-internals";
import { fromSerialized } from "./redact";
import { SECRET } from "../../_shared/stackfile";

/** One resource as the engine would see it. */
export interface CapturedResource {
  /** URN, as the mock monitor computes it (parent type chain included). */
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  /** Custom (provider-backed) resource, or a component. */
  readonly custom: boolean;
  /** Remote (multi-language) component, such as `eks:index:Cluster`. */
  readonly remote: boolean;
  /** Parent URN; undefined for resources parented to the root stack. */
  readonly parent?: string;
  /** Direct dependencies, explicit and implicit (URNs, sorted). */
  readonly dependsOn: readonly string[];
  /** Direct dependencies from `opts.dependsOn` (URNs, sorted). */
  readonly explicitDependsOn: readonly string[];
  /** Direct dependencies through `Output` values and resource references in the inputs (URNs, sorted). */
  readonly implicitDependsOn: readonly string[];
  /** The implicit dependencies per top-level input property (what the engine gets as `propertyDependencies`). */
  readonly propertyDependencies: Readonly<Record<string, readonly string[]>>;
  readonly protect: boolean;
  readonly retainOnDelete: boolean;
  /** Input paths the engine leaves alone on update (`opts.ignoreChanges`). */
  readonly ignoreChanges: readonly string[];
  /** Outputs the engine stores as secrets (`opts.additionalSecretOutputs`). */
  readonly additionalSecretOutputs: readonly string[];
  /** How long the engine waits for the resource (`opts.customTimeouts`), when set. */
  readonly customTimeouts?: { readonly create?: string; readonly update?: string; readonly delete?: string };
  /** URNs the engine treats as this resource's earlier identities (`opts.aliases`, resolved as the SDK does). */
  readonly aliases: readonly string[];
  /** Provider reference (`<urn>::<id>`) when one was set. */
  readonly provider?: string;
  /** Inputs with secret values in the clear: for in-memory checks (policies) only, never written. */
  readonly inputs: Record<string, unknown>;
  /** Inputs with every secret value replaced by `"[secret]"`: what is written to disk. */
  readonly redactedInputs: Record<string, unknown>;
  /** Dotted paths of the inputs that were secret. */
  readonly secretPaths: readonly string[];
}

/** Everything a capture produced. */
export interface Capture<R> {
  /** Every resource except the root stack, sorted by type, name, URN. */
  readonly resources: readonly CapturedResource[];
  /** URN of the root stack. */
  readonly stackUrn: string;
  /** What the program function returned. */
  readonly result: R;
  /** The stack outputs, resolved, secrets replaced by `"[secret]"`. */
  readonly outputs: Record<string, unknown>;
}

/** Options for one capture. */
export interface CaptureOptions {
  readonly project: string;
  readonly stack: string;
  /** Mocks answering registrations and invokes. */
  readonly mocks: pulumi.runtime.Mocks;
  /** Full config keys (`ns:key`) to string values (objects as JSON), as the CLI would pass them. */
  readonly config?: Record<string, string>;
  /** Config keys (`ns:key`) whose values are secret. */
  readonly secretKeys?: readonly string[];
}

interface Seen {
  readonly resource: pulumi.Resource;
  readonly type: string;
  readonly name: string;
  readonly props: unknown;
  readonly opts: pulumi.CustomResourceOptions & pulumi.ComponentResourceOptions;
}

interface Registration {
  readonly custom: boolean;
  readonly remote: boolean;
  readonly provider?: string;
  readonly serialized: unknown;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `program` under `options.mocks` inside a root stack and records every resource. Captures
 * are serialized: Pulumi's runtime state is process-global.
 */
export function capture<R>(
  program: () => ProgramRun<R> | Promise<ProgramRun<R>>,
  options: CaptureOptions,
): Promise<Capture<R>> {
  const run = queue.then(() => captureNow(program, options));
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Runs `body`, failing with the first unhandled promise rejection it causes. An error thrown inside
 * an `apply` (a check on a value known only at deployment) surfaces in the Pulumi runtime as an
 * unhandled rejection, and every resource waiting on that value never registers: without this the
 * capture would hang. Other listeners are set aside meanwhile (captures are serialized) so a test
 * runner does not report the same error a second time.
 */
async function failFast<T>(body: () => Promise<T>): Promise<T> {
  const others = process.listeners("unhandledRejection");
  process.removeAllListeners("unhandledRejection");
  let fail: (e: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const onRejection = (e: unknown) => fail(e);
  process.on("unhandledRejection", onRejection);
  try {
    return await Promise.race([body(), failed]);
  } catch (e) {
    // The runtime's exit-time leak report would blame the promises this error orphaned.
    state.getStore().leakCandidates = new Set();
    // An error a component throws in the program rejects the stack's outputs too, a turn later. That rejection must
    // land here: on Node's default handler it would end the process with a raw trace and exit 1 (the render's code
    // for a policy violation) before the error is reported as internal (exit 70).
    await new Promise((resolve) => setImmediate(resolve));
    throw e;
  } finally {
    process.removeListener("unhandledRejection", onRejection);
    for (const l of others) process.on("unhandledRejection", l);
  }
}

async function captureNow<R>(
  program: () => ProgramRun<R> | Promise<ProgramRun<R>>,
  o: CaptureOptions,
): Promise<Capture<R>> {
  return withoutStackSourceMaps(() => failFast(() => captureBody(program, o)));
}

/**
 * Runs `body` with stack traces left unmapped. The Pulumi SDK takes a stack for every promise it makes
 * (`debuggablePromise`, runtime/debuggable.js: `new Error().stack`, for its leak report) and for every resource
 * (`Resource.callsites`), and under tsx each of those maps every frame through the source maps: 1.6 s of the fast
 * specs' 28.7 s in one process on two cores. Nothing reads those stacks under mocks. Errors the program throws
 * still carry their message and file names; a test's own failures, outside the capture, keep mapped lines.
 */
async function withoutStackSourceMaps<T>(body: () => Promise<T>): Promise<T> {
  const was = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(false);
  try {
    return await body();
  } finally {
    process.setSourceMapsEnabled(was);
  }
}

async function captureBody<R>(
  program: () => ProgramRun<R> | Promise<ProgramRun<R>>,
  o: CaptureOptions,
): Promise<Capture<R>> {
  // The organization a self-managed backend reports (`organization`), so `pulumi.getOrganization()` answers.
  await pulumi.runtime.setMocks(o.mocks, o.project, o.stack, false, "organization");
  pulumi.runtime.setAllConfig({ ...(o.config ?? {}) }, [...(o.secretKeys ?? [])]);
  const registrations = recordRegistrations();
  const seen: Seen[] = [];
  let result: R | undefined;
  let stackExports: Record<string, unknown> = {};
  let stack: pulumi.Resource | undefined;
  await pulumi.runtime.runInPulumiStack(async () => {
    stack = pulumi.runtime.getStackResource();
    pulumi.runtime.registerStackTransformation((a) => {
      seen.push({ resource: a.resource, type: a.type, name: a.name, props: a.props, opts: a.opts as Seen["opts"] });
      return undefined;
    });
    const run = await program();
    result = run.result;
    stackExports = run.exports;
    return run.exports;
  });
  await settings.waitForRPCs();
  // A check in an apply that no input reads (EfaCluster's provider region) fails as an unhandled rejection, which
  // Node reports only once the current microtasks drain: one macrotask turn lets `failFast` see it.
  await new Promise((resolve) => setImmediate(resolve));
  const stackUrn = await urnOf(stack!);
  const resources = await Promise.all(seen.map((s) => describe(s, stack!, registrations)));
  resources.sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || a.urn.localeCompare(b.urn));
  // The stack's own outputs promise unwraps secrets; serialize what the program exported instead.
  const serializedOutputs = await pulumi.runtime.serializeProperties("outputs", stackExports);
  return {
    resources,
    stackUrn,
    result: result as R,
    outputs: fromSerialized(serializedOutputs).redacted as Record<string, unknown>,
  };
}

/** Wraps the current mock monitor's `registerResource` to keep each request's serialized inputs. */
function recordRegistrations(): Map<string, Registration> {
  const monitor = settings.getMonitor();
  const byUrn = new Map<string, Registration>();
  const original = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: RegisterResourceRequest, callback: (err: unknown, resp?: unknown) => void) => {
    const urn: string = monitor.newUrn(req.getParent(), req.getType(), req.getName());
    byUrn.set(urn, {
      custom: req.getCustom(),
      remote: req.getRemote(),
      provider: req.getProvider() || undefined,
      serialized: req.getObject()?.toJavaScript() ?? {},
    });
    return original(req, callback);
  };
  // A read (`pulumi.StackReference`, a resource `get`) reaches the monitor as readResource, with its properties.
  const read = monitor.readResource.bind(monitor);
  monitor.readResource = (req: ReadResourceRequest, callback: (err: unknown, resp?: unknown) => void) => {
    const urn: string = monitor.newUrn(req.getParent(), req.getType(), req.getName());
    byUrn.set(urn, {
      custom: true,
      remote: false,
      provider: req.getProvider() || undefined,
      serialized: req.getProperties()?.toJavaScript() ?? {},
    });
    return read(req, callback);
  };
  return byUrn;
}

async function urnOf(r: pulumi.Resource): Promise<string> {
  return outputPromise(r.urn);
}

async function urnsOf(resources: Iterable<pulumi.Resource>, self: pulumi.Resource): Promise<string[]> {
  const unique = [...new Set(resources)].filter((r) => r !== self);
  return [...new Set(await Promise.all(unique.map(urnOf)))].sort();
}

/** Resources behind Outputs and resource references anywhere in `value`. */
async function implicitResources(
  value: unknown,
  found: Set<pulumi.Resource>,
  visited = new Set<unknown>(),
): Promise<void> {
  if (value === null || typeof value !== "object" || visited.has(value)) return;
  visited.add(value);
  if (pulumi.Resource.isInstance(value)) {
    found.add(value);
    return;
  }
  if (pulumi.Output.isInstance(value)) {
    for (const r of await getAllResources(value)) found.add(r);
    await implicitResources(await outputPromise(value, true), found, visited);
    return;
  }
  if (value instanceof Promise) {
    await implicitResources(await value, found, visited);
    return;
  }
  for (const v of Array.isArray(value) ? value : Object.values(value)) await implicitResources(v, found, visited);
}

/**
 * The resource's aliases as URNs of the monitor's own scheme (the scheme every captured URN is in): an alias is a
 * spec (name, type, parent, each defaulting to the resource's own) that the engine turns into a URN its own way, so
 * the capture does the same with the monitor's `newUrn` rather than the SDK's client-side `createUrn`.
 */
async function aliasesOf(s: Seen, stack: pulumi.Resource): Promise<string[]> {
  const urns = await Promise.all(
    (s.opts.aliases ?? []).map(async (alias) => {
      const a = await outputPromise(pulumi.output(alias) as pulumi.Output<string | pulumi.Alias>);
      if (typeof a === "string") return a;
      const parent = a.parent ?? s.opts.parent ?? stack;
      const parentUrn = pulumi.Resource.isInstance(parent)
        ? await urnOf(parent)
        : await outputPromise(pulumi.output(parent as pulumi.Input<string>));
      const name = await outputPromise(pulumi.output(a.name ?? s.name));
      const type = await outputPromise(pulumi.output(a.type ?? s.type));
      return settings.getMonitor().newUrn(parentUrn, type, name);
    }),
  );
  return [...new Set(urns)].sort();
}

async function describe(s: Seen, stack: pulumi.Resource, regs: Map<string, Registration>): Promise<CapturedResource> {
  const urn = await urnOf(s.resource);
  const parentRes = s.opts.parent ?? stack;
  const parent = parentRes === stack ? undefined : await urnOf(parentRes);
  const explicit = await urnsOf(await dependsOn.gatherExplicitDependencies(s.opts.dependsOn), s.resource);
  const propertyDependencies: Record<string, string[]> = {};
  const props = (s.props ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(props).sort()) {
    const found = new Set<pulumi.Resource>();
    await implicitResources(props[key], found);
    const urns = await urnsOf(found, s.resource);
    if (urns.length > 0) propertyDependencies[key] = urns;
  }
  const implicit = [...new Set(Object.values(propertyDependencies).flat())].sort();
  const reg = regs.get(urn);
  if (!reg) throw new Error(`internal: resource ${urn} was constructed but never registered with the monitor`);
  const { plain, redacted, secretPaths } = fromSerialized(reg.serialized);
  return {
    urn,
    type: s.type,
    name: s.name,
    custom: reg.custom,
    remote: reg.remote,
    ...(parent ? { parent } : {}),
    dependsOn: [...new Set([...explicit, ...implicit])].sort(),
    explicitDependsOn: explicit,
    implicitDependsOn: implicit,
    propertyDependencies,
    protect: isProtected(s.resource),
    retainOnDelete: s.opts.retainOnDelete === true,
    ignoreChanges: [...(s.opts.ignoreChanges ?? [])],
    additionalSecretOutputs: [...(s.opts.additionalSecretOutputs ?? [])],
    ...(s.opts.customTimeouts ? { customTimeouts: { ...s.opts.customTimeouts } } : {}),
    aliases: await aliasesOf(s, stack),
    ...(reg.provider ? { provider: reg.provider } : {}),
    inputs: plain as Record<string, unknown>,
    redactedInputs: redacted as Record<string, unknown>,
    secretPaths,
  };
}

export { SECRET };
