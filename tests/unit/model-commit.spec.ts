/**
 * One commit per deployment (issue 31 point 8; components/inference/revision.ts, hf-commit.ts, model-commit.ts): a
 * moving revision is resolved against the fake hub on 127.0.0.1 with the prefetch's token rule; the dynamic
 * provider resolves once and keeps its commit (its serialized form: model-commit-serialized.spec.ts); every pod of a
 * graph is rendered with that one commit; the plan says which.
 */
import { strict as assert } from "assert";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_ANSWER_BYTES, resolveCommit } from "../../components/inference/hf-commit";
import { modelCommitProvider } from "../../components/inference/model-commit";
import { revisionPlan, RevisionResolution, withCommit } from "../../components/inference/revision";
import { renderGraph } from "../../components/inference/graph";
import { renderPrefetchDaemonSet } from "../../components/inference/cache";
import { Fake, fakeHf, MODEL, SHA } from "../helpers/fake-hf";
import { IMAGE, pool, resolved } from "../helpers/inference-fixtures";

/** A fetch that answers each URL from `answers` (status, location) and logs what it was sent. */
function scripted(answers: Record<string, [number, string?]>, seen: { url: string; auth?: string }[]): typeof fetch {
  return (async (input: URL | string, init?: RequestInit) => {
    const url = String(input);
    const headers = (init?.headers ?? {}) as Record<string, string>;
    seen.push({ url, ...(headers.Authorization ? { auth: headers.Authorization } : {}) });
    const [status, location] = answers[url] ?? [200];
    return status === 200
      ? new Response(JSON.stringify({ sha: SHA }), { status })
      : new Response("", { status, headers: location ? { Location: location } : {} });
  }) as typeof fetch;
}

describe("one commit per deployment: a moving revision resolved once at pulumi up", function () {
  this.timeout(60000);
  let hf: Fake;
  beforeEach(async () => {
    hf = await fakeHf();
  });
  afterEach(() => hf.close());

  describe("resolveCommit (the hub's revision endpoint, the prefetch's token rule)", () => {
    it("main names the hub's commit; the token goes to the hub", async () => {
      const sha = await resolveCommit({ endpoint: hf.url, model: MODEL, revision: "main", token: hf.token });
      assert.equal(sha, SHA);
      assert.deepEqual(hf.requests, [{ path: `/api/models/${MODEL}/revision/main`, auth: `Bearer ${hf.token}` }]);
    });

    it("a token without access, or none for a private model, fails naming the revision, the model and both fixes", async () => {
      await assert.rejects(
        resolveCommit({ endpoint: hf.url, model: MODEL, revision: "main", token: "hf_other" }),
        /cannot resolve inference\.modelRevision "main" of acme\/tiny-llm to a commit at http:\/\/127\.0\.0\.1:\d+: HTTP 403: .*the token \(dynamo-efa:hfToken\) has no access to it; or pin inference\.modelRevision to a 40-hex commit/,
      );
      await assert.rejects(
        resolveCommit({ endpoint: hf.url, model: MODEL, revision: "main" }),
        /HTTP 401: .*the program has no token \(set dynamo-efa:hfToken/,
      );
    });

    it("an answer without a commit sha is refused", async () => {
      hf.listing = (l) => ({ ...l, sha: "../x" });
      await assert.rejects(
        resolveCommit({ endpoint: hf.url, model: MODEL, revision: "main", token: hf.token }),
        /the answer carries no commit sha \("\.\.\/x"\)/,
      );
    });

    it("redirects: the token stays on the endpoint's origin; https to http is refused", async () => {
      const seen: { url: string; auth?: string }[] = [];
      const api = "https://hub.example/api/models/acme/tiny-llm/revision/main";
      const sha = await resolveCommit(
        { endpoint: "https://hub.example", model: MODEL, revision: "main", token: "t" },
        scripted(
          {
            [api]: [307, "/api/models/acme/renamed/revision/main"],
            "https://hub.example/api/models/acme/renamed/revision/main": [302, "https://mirror.example/x"],
          },
          seen,
        ),
      );
      assert.equal(sha, SHA);
      assert.deepEqual(
        seen.map((s) => [new URL(s.url).host, s.auth]),
        [
          ["hub.example", "Bearer t"],
          ["hub.example", "Bearer t"],
          ["mirror.example", undefined],
        ],
      );
      await assert.rejects(
        resolveCommit(
          { endpoint: "https://hub.example", model: MODEL, revision: "main", token: "t" },
          scripted({ [api]: [302, "http://hub.example/x"] }, []),
        ),
        /refusing a redirect from https to http \(http:\/\/hub\.example\/x\)/,
      );
    });
  });

  describe("the hub's answer, bounded (RELIABILITY-AUDIT-2 H1)", () => {
    /** A loopback endpoint answering 200 with `write`'s body; counts the bytes it managed to send. */
    async function endpoint(write: (res: http.ServerResponse) => void) {
      const server = http.createServer((_req, res) => write(res));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return {
        url,
        close: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      };
    }
    const q = (url: string) => ({ endpoint: url, model: MODEL, revision: "main" });

    it("an answer that declares more than 16 MiB is refused unread", async () => {
      const e = await endpoint((res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(1024 ** 3) });
        res.write('{"sha":"');
      });
      try {
        await assert.rejects(
          resolveCommit(q(e.url)),
          new RegExp(`the answer is larger than ${MAX_ANSWER_BYTES} bytes \\(Content-Length 1073741824\\)`),
        );
      } finally {
        await e.close();
      }
    });

    it("a streamed answer past 16 MiB (no length declared) is cut off there, not buffered", async () => {
      let sent = 0;
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const e = await endpoint((res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"pad":"');
        const more = () => {
          while (sent < 64 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", more);
          }
          res.end('"}');
        };
        more();
      });
      try {
        await assert.rejects(
          resolveCommit(q(e.url)),
          /the answer is larger than 16777216 bytes \(stopped reading there\)/,
        );
        assert.ok(sent < 64 * 1024 * 1024, `the server sent all ${sent} bytes: the reader did not stop`);
      } finally {
        await e.close();
      }
    });

    it("an answer still dripping at the deadline is reported as a timeout, not as not-JSON", async () => {
      const e = await endpoint((res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"sha":"0123');
      });
      try {
        await assert.rejects(
          resolveCommit(q(e.url), fetch, { seconds: 0.5, bytes: MAX_ANSWER_BYTES }),
          /the answer did not arrive within 0\.5 s \(timeout, 12 bytes read\)/,
        );
      } finally {
        await e.close();
      }
    });

    it("no answer at all by the deadline is a timeout too", async () => {
      const e = await endpoint(() => undefined);
      try {
        await assert.rejects(
          resolveCommit(q(e.url), fetch, { seconds: 0.5, bytes: MAX_ANSWER_BYTES }),
          /no answer within 0\.5 s \(timeout\)/,
        );
      } finally {
        await e.close();
      }
    });
  });

  describe("the ModelCommit provider", () => {
    const inputs = (over: Record<string, string> = {}) => ({
      endpoint: hf.url,
      model: MODEL,
      revision: "main",
      token: hf.token,
      ...over,
    });

    it("create resolves the commit; the token is not among its outputs", async () => {
      const r = await modelCommitProvider.create(inputs());
      assert.deepEqual(r.outs, { endpoint: hf.url, model: MODEL, revision: "main", commit: SHA });
      assert.equal(r.id, `${MODEL}@${SHA}`);
    });

    it("diff: the same revision keeps its commit (the owner's later pushes do not move a deployment); another revision, model or endpoint resolves again", async () => {
      const diff = modelCommitProvider.diff!.bind(modelCommitProvider);
      assert.deepEqual(await diff("id", inputs(), inputs({ token: "hf_rotated" })), {
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
      assert.deepEqual((await diff("id", inputs(), inputs({ revision: "v2" }))).replaces, ["revision"]);
      assert.deepEqual((await diff("id", inputs(), inputs({ model: "acme/other" }))).replaces, ["model"]);
    });
  });

  describe("every pod of the graph gets the one commit; the plan says how", () => {
    const nvme = pool("p5en.48xlarge", 2, true, { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } });
    const commit = "c".repeat(40);

    it("local-nvme: every worker's --model directory and the DaemonSet's MODEL_REVISION name the commit", () => {
      // The seed's Frontend keeps its own copy (dynamo-1.6 fetches self-hosted cards from the workers).
      const r = withCommit(
        resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "local-nvme", gpuPool: nvme, release: "seed" }),
        commit,
      );
      const graph = JSON.stringify(renderGraph(r, IMAGE));
      const ds = JSON.stringify(renderPrefetchDaemonSet(r));
      assert.ok(!/\/main"|"main"/.test(graph + ds), "no pod names the moving revision");
      assert.equal(
        (graph.match(new RegExp(`/${commit}"`, "g")) ?? []).length,
        2,
        "both roles load the commit's directory",
      );
      assert.equal(
        (graph.match(new RegExp(`"value":"${commit}"`, "g")) ?? []).length,
        3,
        "both roles' prefetch downloads it, and the Frontend's model-config fetches its config files",
      );
      assert.match(ds, new RegExp(`"name":"MODEL_REVISION","value":"${commit}"`));
    });

    it("vLLM downloading itself gets --revision <commit>; TensorRT-LLM downloading itself cannot, and the plan says so", () => {
      const v = JSON.stringify(renderGraph(withCommit(resolved("p5en-8x1gpu", "vllm"), commit), IMAGE));
      assert.equal((v.match(new RegExp(`"--revision","${commit}"`, "g")) ?? []).length, 2);
      const t = resolved("p5en-8x1gpu", "trtllm");
      assert.equal(withCommit(t, commit), t);
      assert.equal(revisionPlan(t).resolution, RevisionResolution.Unpinned);
      assert.match(revisionPlan(t).note, /each worker downloads what "main" names when it starts/);
    });

    it("the plan: a commit is stated; a moving revision is resolved at deploy", () => {
      const local = resolved("p5en-8x1gpu", "vllm", { modelCacheMode: "local-nvme", gpuPool: nvme });
      assert.deepEqual(revisionPlan({ ...local, modelRevision: commit }), {
        requested: commit,
        resolution: RevisionResolution.Pinned,
        commit,
        note: "every worker serves this commit",
      });
      const moving = revisionPlan(local);
      assert.equal(moving.resolution, RevisionResolution.AtDeploy);
      assert.equal(moving.commit, undefined);
      assert.match(moving.note, /`pulumi up` resolves it once to a commit/);
    });
  });
});
