/** A fake Prometheus HTTP API for verify's gate F. */
import * as http from "node:http";
import { Fake, json, listen, closer } from "./fake-http";

/**
 * A fake Prometheus HTTP API: `/api/v1/query` answers an instant vector (0.85 s for time-to-first-token
 * queries, 0.012 s for the rest), or an empty result for queries naming a metric in `unscraped`.
 */
export async function startPrometheus(unscraped: readonly string[] = []): Promise<Fake> {
  const requests: { path: string; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const q = u.searchParams.get("query") ?? "";
    requests.push({ path: u.pathname, body: q });
    if (u.pathname !== "/api/v1/query")
      return json(res, 404, { status: "error", errorType: "not_found", error: "not found" });
    const seconds = q.includes("time_to_first_token") ? 0.85 : 0.012;
    const result = unscraped.some((m) => q.includes(m)) ? [] : [{ metric: {}, value: [1764500000, String(seconds)] }];
    return json(res, 200, { status: "success", data: { resultType: "vector", result } });
  });
  return { url: await listen(server), requests, close: closer(server) };
}
