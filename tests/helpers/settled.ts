/**
 * Waiting for the mock monitor without a timing guess: a resource's urn resolves only after the monitor has
 * registered it (and the mocks recorded it), so a test awaits the urns of the resources it saw constructed.
 */
import * as pulumi from "@pulumi/pulumi";
import { promiseOf } from "./outputs";

/**
 * Resolves once every resource `resources()` lists is registered, including any constructed while waiting (an
 * `apply` may create more): it awaits the urns until the list stops growing.
 */
export async function registered(resources: () => readonly pulumi.Resource[]): Promise<void> {
  let seen = -1;
  while (resources().length !== seen) {
    const now = resources();
    seen = now.length;
    await Promise.all(now.map((r) => promiseOf(r.urn)));
  }
}

/**
 * A legacy transformation that records every resource constructed under the component it is passed to (it runs
 * synchronously in each child's constructor), with the list it fills. It runs for the component itself too,
 * which has no parent and is left out.
 */
export function recordChildren(): { children: pulumi.Resource[]; transformation: pulumi.ResourceTransformation } {
  const children: pulumi.Resource[] = [];
  return {
    children,
    transformation: (a) => {
      if (a.opts.parent !== undefined) children.push(a.resource);
      return undefined;
    },
  };
}
