/**
 * Component tests capture their components with the render's own engine and mock universe
 * (`tools/render/capture/capture.ts`, `tools/render/capture/mocks.ts`; docs/CONTRIBUTING.md rule 16): every
 * resource with its URN, parent, provider, dependencies, protect/retainOnDelete and secret inputs, and every invoke
 * with its answer. An invoke the mocks do not know fails the capture, so an unexpected cloud lookup fails the test.
 */
import type * as pulumi from "@pulumi/pulumi";
import { capture, Capture, CapturedResource } from "../../tools/render/capture/capture";
import { MockInvoke, renderMocks } from "../../tools/render/capture/mocks";

/** The default AWS provider's region in component tests (a test with another region says so). */
export const TEST_REGION = "us-east-2";

/** A capture, with the invokes the components made. */
export interface Captured<R> extends Capture<R> {
  readonly invokes: readonly MockInvoke[];
}

/**
 * Runs `build` as the body of a stack "test" of project "dynamo-efa" under the mocks, the default AWS provider in
 * `o.region`, with stack config `o.config` (full keys), and returns what it registered and returned.
 */
export async function captureComponents<R>(
  build: () => R,
  o: { readonly region?: string; readonly config?: Record<string, string> } = {},
): Promise<Captured<R>> {
  const invokes: MockInvoke[] = [];
  const c = await capture(() => ({ exports: {}, result: build() }), {
    project: "dynamo-efa",
    stack: "test",
    mocks: renderMocks(o.region ?? TEST_REGION, invokes),
    ...(o.config ? { config: o.config } : {}),
  });
  return { ...c, invokes };
}

/**
 * A captured resource whose inputs a test reads by path: each resource type has its own shape, so they are typed as
 * Pulumi types the inputs its mock monitor hands over (`MockResourceArgs.inputs`, `any`).
 */
export type Found = Omit<CapturedResource, "inputs"> & { readonly inputs: pulumi.runtime.MockResourceArgs["inputs"] };

/** Captured resources of one type, sorted by name. */
export function ofType(resources: readonly CapturedResource[], type: string): Found[] {
  return resources.filter((r) => r.type === type).sort((a, b) => a.name.localeCompare(b.name));
}

/** The single captured resource with this type and name; throws listing what exists otherwise. */
export function one(resources: readonly CapturedResource[], type: string, name: string): Found {
  const hit = resources.filter((r) => r.type === type && r.name === name);
  if (hit.length !== 1)
    throw new Error(
      `no single ${type} named ${name}; have: ${resources.map((r) => `${r.type}::${r.name}`).join(", ")}`,
    );
  return hit[0];
}
