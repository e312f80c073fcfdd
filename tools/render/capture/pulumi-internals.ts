/**
 * The few @pulumi/pulumi internals the capture engine needs, typed here: they are exported at runtime
 * but marked `@internal` (so stripped) in the SDK's typings. Each shape was read from @pulumi/pulumi
 * 3.248.0 (`runtime/settings.js`, `runtime/mocks.js`, `runtime/dependsOn.js`, `runtime/state.js`,
 * `output.js`, `resource.js`); the render's tests fail if one of them moves.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as dependsOnModule from "@pulumi/pulumi/runtime/dependsOn";
import * as settingsModule from "@pulumi/pulumi/runtime/settings";
import * as stateModule from "@pulumi/pulumi/runtime/state";

/** What the capture reads of a `RegisterResourceRequest` (the protobuf message the monitor receives). */
export interface RegisterResourceRequest {
  getParent(): string;
  getType(): string;
  getName(): string;
  getCustom(): boolean;
  getRemote(): boolean;
  getProvider(): string;
  getObject(): { toJavaScript(): unknown } | undefined;
}

/** What the capture reads of a `ReadResourceRequest` (a read: `pulumi.StackReference`, a resource `get`). */
export interface ReadResourceRequest {
  getParent(): string;
  getType(): string;
  getName(): string;
  getProvider(): string;
  getProperties(): { toJavaScript(): unknown } | undefined;
}

/** The monitor `pulumi.runtime.setMocks` installs (`MockMonitor` in runtime/mocks.js). */
export interface MockMonitor {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: RegisterResourceRequest, callback: (err: unknown, resp?: unknown) => void): unknown;
  readResource(req: ReadResourceRequest, callback: (err: unknown, resp?: unknown) => void): unknown;
}

/** `runtime/settings`: the current monitor, and the wait for every outstanding resource RPC. */
export const settings = settingsModule as unknown as {
  getMonitor(): MockMonitor;
  waitForRPCs(): Promise<void>;
};

/** `runtime/dependsOn`: resolves `opts.dependsOn` (resources, Outputs and promises of them) as the SDK does. */
export const dependsOn = dependsOnModule as unknown as {
  gatherExplicitDependencies(d: pulumi.ResourceOptions["dependsOn"]): Promise<pulumi.Resource[]>;
};

/** `runtime/state`: the runtime's store, whose leak candidates are reported when the process exits. */
export const state = stateModule as unknown as {
  getStore(): { leakCandidates: Set<Promise<unknown>> };
};

/** An `Output`'s value as a promise; `withUnknowns` keeps values unknown at preview instead of dropping them. */
export function outputPromise<T>(o: pulumi.Output<T>, withUnknowns = false): Promise<T> {
  return (o as unknown as { promise(withUnknowns?: boolean): Promise<T> }).promise(withUnknowns);
}

/** Whether a resource is protected, after inheriting `protect` from its parent (`Resource.__protect`). */
export function isProtected(r: pulumi.Resource): boolean {
  return (r as unknown as { __protect?: boolean }).__protect === true;
}
