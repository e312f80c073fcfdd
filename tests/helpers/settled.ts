/** Waiting for the mock monitor: component tests read what was registered once registration stops. */
import type { Recorded } from "./mocks";

/** Resolves once no new registration arrived for `quietMs` (registration is asynchronous). */
export async function settled(rec: readonly Recorded[], quietMs = 150, maxMs = 5000): Promise<void> {
  const start = Date.now();
  let last = -1;
  while (Date.now() - start < maxMs) {
    if (rec.length === last) return;
    last = rec.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}
