/**
 * Env names main still sets in the rendered graph and the image although the pinned upstream reads none of
 * them (tests/contracts/facts/env-*.json), and another branch of issue 12 removes them (break 6: the deploy
 * branch drops FI_EFA_ENABLE_SHM from the graph; the image drops it too). The contract test proves each is
 * dead; tests that need today's plan clean strip them. The integrator empties this list once the removals
 * are merged, and from then on any of them coming back fails.
 */
export const PENDING_REMOVAL_ENV: readonly string[] = ["FI_EFA_ENABLE_SHM"];

/** Removes the pending names from every `env`/`envs` list in `obj`, in place; returns `obj`. */
export function stripPendingEnv<T>(obj: T): T {
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) { o.forEach(walk); return; }
    if (o === null || typeof o !== "object") return;
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
      if ((k === "env" || k === "envs") && Array.isArray(v)) {
        (o as Record<string, unknown>)[k] = v.filter((e) => !PENDING_REMOVAL_ENV.includes((e as { name?: string })?.name ?? ""));
      }
      walk((o as Record<string, unknown>)[k]);
    }
  };
  walk(obj);
  return obj;
}
