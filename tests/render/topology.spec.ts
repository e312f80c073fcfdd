/**
 * `topology.svg`: both stacks write it; parsed with a strict XML parser, it has one GPU cell per
 * provisioned GPU and one rail cell per EFA device, every worker replica of `plan.json` on exactly
 * its GPUs and rails of ONE node, no node holding two roles that avoid each other, idle cells for
 * what is left, and a KV path labelled with the plan's transport and transfer time. The layout's
 * rules are checked on small plans too (packing, anti-affinity, a replica that fits nowhere).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import type { Plan } from "../../tools/render/plan/plan";
import { layoutOf } from "../../tools/render/plan/layout";
import { idleNodesLine, placementOf } from "../../tools/render/plan/placement";
import { topologySvg } from "../../tools/render/pictures/topology";
import { planWorker as worker } from "../helpers/plan-worker";
import { allElements, parseXml, XmlElement } from "../helpers/xml";

const STACKS = ["p5en-1gpu", "p5en-8gpu"] as const;

const cells = (els: XmlElement[], cls: string) => els.filter((e) => e.name === "rect" && e.attrs.class === cls);

/** Checks an SVG against its plan; returns nothing, asserts everything. */
function checkAgainstPlan(svg: string, plan: Plan): void {
  const els = allElements(parseXml(svg));
  assert.equal(els[0].name, "svg");
  const nodes = els.filter((e) => e.name === "g" && e.attrs.class === "node");
  assert.equal(
    nodes.length,
    plan.gpuPools.reduce((s, p) => s + p.nodes, 0),
    "one box per GPU node",
  );
  const gpus = cells(els, "gpu");
  const rails = cells(els, "rail");
  assert.equal(gpus.length, plan.gpus.provisioned, "one GPU cell per provisioned GPU");
  assert.equal(rails.length, plan.efaRails.provisioned, "one rail cell per EFA device");
  for (const n of nodes) {
    const pool = plan.gpuPools.find((p) => p.name === n.attrs["data-pool"]);
    assert.ok(pool, `node ${n.attrs["data-node"]} of an unknown pool`);
    const mine = allElements(n);
    assert.deepEqual(
      cells(mine, "gpu").map((c) => Number(c.attrs["data-gpu"])),
      Array.from({ length: pool.gpusPerNode }, (_, i) => i),
    );
    assert.equal(cells(mine, "rail").length, pool.efaPerNode);
  }
  const nodeOf = (c: XmlElement) => c.attrs["data-node"];
  for (const w of plan.workers.filter((x) => x.gpusPerWorker > 0)) {
    for (let r = 0; r < w.replicas; r++) {
      const id = `${w.service}/${r}`;
      const g = gpus.filter((c) => c.attrs["data-worker"] === id);
      const e = rails.filter((c) => c.attrs["data-worker"] === id);
      assert.equal(g.length, w.gpusPerWorker, `${id}: GPU cells`);
      assert.equal(e.length, w.efaPerWorker, `${id}: rail cells`);
      assert.equal(new Set([...g, ...e].map(nodeOf)).size, 1, `${id}: GPUs and rails on one node`);
      assert.ok(g.every((c) => c.attrs["data-role"] === w.role));
    }
  }
  for (const n of nodes) {
    const services = new Set(
      cells(allElements(n), "gpu")
        .map((c) => c.attrs["data-worker"]?.split("/")[0])
        .filter(Boolean),
    );
    for (const w of plan.workers)
      if (services.has(w.service))
        for (const a of w.avoids) assert.ok(!services.has(a), `${w.service} shares ${n.attrs["data-node"]} with ${a}`);
  }
  assert.equal(
    gpus.filter((c) => c.attrs["data-state"] === "idle").length,
    plan.gpus.provisioned - plan.gpus.requested,
    "idle GPU cells",
  );
  assert.equal(
    rails.filter((c) => c.attrs["data-state"] === "idle").length,
    plan.efaRails.provisioned - plan.efaRails.used,
    "idle rail cells",
  );
}

describe("render: topology.svg", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-topology-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const stack of STACKS) {
    it(`${stack}: written, well-formed, and matches plan.json`, async () => {
      const code = await runCli([stack, "--out", tmp], {
        ...defaultDeps(),
        stdout: () => undefined,
        stderr: () => undefined,
      });
      assert.equal(code, 0);
      const dir = path.join(tmp, stack);
      const plan = JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8")) as Plan;
      const svg = fs.readFileSync(path.join(dir, "topology.svg"), "utf8");
      checkAgainstPlan(svg, plan);
      const kv = allElements(parseXml(svg)).find((e) => e.attrs.class === "kv-path");
      assert.ok(kv, "KV path drawn");
      assert.equal(kv.attrs["data-transport"], plan.kvTransport?.transport);
      const f = plan.fit?.find((x) => x.role === "prefill");
      // The arrow carries the transfer of the workload's prompt, not of maxModelLen.
      assert.ok(f, "a prefill fit row");
      assert.equal(f.kvPromptTokens, plan.serving?.workload.isl);
      const label = allElements(kv).find((e) => e.name === "text");
      assert.equal(label?.text, `KV ~${f.kvTransferMsAtPrompt} ms`);
      // It names what runs: the model, the engine and its version, the Dynamo release, NIXL.
      const runs = allElements(parseXml(svg)).find((e) => e.attrs.class === "runs");
      const r = plan.runtime!;
      assert.equal(
        allElements(runs!).find((e) => e.name === "text")?.text,
        `${plan.model!.id} on ${r.engine.name} ${r.engine.version} (backend ${r.backend}), Dynamo ${r.dynamo} (release ${r.release}), NIXL ${r.nixl}`,
      );
      const md = fs.readFileSync(path.join(dir, "plan.md"), "utf8");
      assert.match(md, /!\[[^\]]*\]\(topology\.svg\)/, "plan.md embeds the SVG");
      const mmd = fs.readFileSync(path.join(dir, "graph.mmd"), "utf8");
      assert.ok(md.includes("```mermaid\n" + mmd.trimEnd() + "\n```"), "plan.md embeds graph.mmd as a mermaid block");
    });
  }

  it("acceptance: p5en-8gpu on 4 nodes with 16 + 16 workers exits 0, 32/32 GPUs, roles kept apart on disjoint nodes", async () => {
    const out: string[] = [];
    const code = await runCli(
      [
        "p5en-8gpu",
        "--out",
        tmp,
        "--set",
        "cluster.gpuPools.gpu.nodes=4",
        "--set",
        "inference.prefill.replicas=16",
        "--set",
        "inference.decode.replicas=16",
      ],
      { ...defaultDeps(), stdout: (l) => out.push(l), stderr: () => undefined },
    );
    assert.equal(code, 0, out.join("\n"));
    const dir = path.join(tmp, "p5en-8gpu");
    const plan = JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8")) as Plan;
    assert.deepEqual([plan.gpus.requested, plan.gpus.provisioned], [32, 32]);
    assert.deepEqual(
      plan.workers.filter((w) => w.gpusPerWorker > 0).map((w) => [w.role, w.avoids]),
      [
        ["prefill", ["DecodeWorker"]],
        ["decode", ["PrefillWorker"]],
      ],
    );
    const svg = fs.readFileSync(path.join(dir, "topology.svg"), "utf8");
    checkAgainstPlan(svg, plan);
    const rolesByNode = new Map<string, Set<string>>();
    for (const c of cells(allElements(parseXml(svg)), "gpu"))
      rolesByNode.set(
        c.attrs["data-node"],
        new Set([...(rolesByNode.get(c.attrs["data-node"]) ?? []), c.attrs["data-role"]]),
      );
    assert.deepEqual(
      [...rolesByNode].map(([n, r]) => `${n}:${[...r].join("+")}`),
      ["gpu-0:prefill", "gpu-1:prefill", "gpu-2:decode", "gpu-3:decode"],
    );
    assert.ok(!out.some((l) => l.includes("IDLE")), out.join("\n"));
  });

  it("4 nodes with the stack's 8 + 8 workers: exit 0, and the summary says 2 nodes are idle and what they cost", async () => {
    const out: string[] = [];
    const code = await runCli(["p5en-8gpu", "--out", tmp, "--set", "cluster.gpuPools.gpu.nodes=4"], {
      ...defaultDeps(),
      stdout: (l) => out.push(l),
      stderr: () => undefined,
    });
    assert.equal(code, 0);
    assert.ok(
      out.some((l) => /IDLE: 2 of 4 GPU nodes hold no worker \(gpu-2, gpu-3; ~\$126\.60\/hour/.test(l)),
      out.join("\n"),
    );
    assert.ok(
      out.some((l) => l.includes("[advisory] no-idle-gpu-nodes")),
      out.join("\n"),
    );
    assert.match(fs.readFileSync(path.join(tmp, "p5en-8gpu", "plan.md"), "utf8"), /\*\*IDLE: 2 of 4 GPU nodes/);
  });

  describe("layout rules", () => {
    const pool = (nodes: number) => [
      { name: "gpu", instanceType: "p5en.48xlarge", nodes, gpusPerNode: 8, efaPerNode: 16, smArch: "sm_90" },
    ];

    it("packs roles without anti-affinity onto one node, rails aligned to GPUs", () => {
      const l = layoutOf({ gpuPools: pool(2), workers: [worker("prefill", 2, 2, 4), worker("decode", 1, 4, 8)] });
      assert.deepEqual(
        l.nodes[0].workers.map((w) => [w.role, w.gpus, w.rails]),
        [
          ["prefill", [0, 1], [0, 1, 2, 3]],
          ["prefill", [2, 3], [4, 5, 6, 7]],
          ["decode", [4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]],
        ],
      );
      assert.equal(l.nodes[1].workers.length, 0);
    });

    it("keeps roles apart under anti-affinity and reports replicas that fit nowhere", () => {
      const l = layoutOf({
        gpuPools: pool(2),
        workers: [worker("prefill", 1, 1, 2, ["DecodeWorker"]), worker("decode", 9, 1, 2, ["PrefillWorker"])],
      });
      assert.deepEqual(
        l.nodes.map((n) => new Set(n.workers.map((w) => w.role)).size),
        [1, 1],
      );
      assert.deepEqual(l.unplaced, [{ service: "DecodeWorker", role: "decode", replica: 8 }]);
    });

    it("separate-nodes on 4 nodes, 16 + 16: prefill and decode on disjoint node sets, 2 each; the plan agrees", () => {
      const p = {
        gpuPools: pool(4),
        workers: [worker("prefill", 16, 1, 2, ["DecodeWorker"]), worker("decode", 16, 1, 2, ["PrefillWorker"])],
      };
      const l = layoutOf(p);
      const rolesOn = l.nodes.map((n) => [...new Set(n.workers.map((w) => w.role))].join("+"));
      assert.deepEqual(rolesOn, ["prefill", "prefill", "decode", "decode"]);
      assert.deepEqual(l.unplaced, []);
      const placed = placementOf(p);
      assert.deepEqual(
        [placed.mode, placed.nodesByRole, placed.idleNodes, idleNodesLine(placed)],
        ["separate-nodes", { prefill: ["gpu-0", "gpu-1"], decode: ["gpu-2", "gpu-3"] }, [], undefined],
      );
      const svg = topologySvg({
        stack: "t",
        region: "us-east-2",
        ...p,
        gpus: { requested: 32, provisioned: 32 },
        efaRails: { used: 64, provisioned: 64 },
      } as unknown as Plan);
      assert.match(
        svg,
        /prefill on gpu-0, gpu-1; decode on gpu-2, gpu-3; required anti-affinity keeps prefill and decode on disjoint nodes/,
      );
    });

    it("8 + 8 on 4 nodes leaves 2 idle: said in the plan line with their on-demand price", () => {
      const placed = placementOf({
        gpuPools: pool(4),
        workers: [worker("prefill", 8, 1, 2, ["DecodeWorker"]), worker("decode", 8, 1, 2, ["PrefillWorker"])],
      });
      assert.deepEqual([placed.nodesUsed, placed.idleNodes, placed.idleUsdPerHour], [2, ["gpu-2", "gpu-3"], 126.6]);
      assert.equal(
        idleNodesLine(placed),
        "IDLE: 2 of 4 GPU nodes hold no worker (gpu-2, gpu-3; ~$126.60/hour on demand, billed while running); lower the GPU pool's node count (cluster.gpuPools.<pool>.nodes) to 2 or add replicas",
      );
      const shared = placementOf({
        gpuPools: pool(2),
        workers: [worker("prefill", 4, 1, 2), worker("decode", 4, 1, 2)],
      });
      assert.deepEqual([shared.mode, shared.nodesUsed, shared.idleNodes], ["shared", 1, ["gpu-1"]]);
    });

    it("draws an unplaced replica as a warning, and the check catches a missing GPU cell", () => {
      const plan = {
        stack: "t",
        region: "us-east-1",
        gpuPools: pool(1),
        workers: [worker("prefill", 9, 1, 0)],
        gpus: { requested: 9, provisioned: 8 },
        efaRails: { used: 0, provisioned: 16 },
      } as unknown as Plan;
      const svg = topologySvg(plan);
      assert.match(svg, /NOT PLACED \(would stay Pending\): PrefillWorker\/8/);
      assert.throws(() => checkAgainstPlan(svg, plan), /PrefillWorker\/8: GPU cells|idle GPU cells/);
      const good = { ...plan, workers: [worker("prefill", 8, 1, 0)], gpus: { requested: 8, provisioned: 8 } } as Plan;
      checkAgainstPlan(topologySvg(good), good);
      assert.throws(
        () => checkAgainstPlan(topologySvg(good).replace(/<rect class="gpu"[^>]*data-gpu="7"[^>]*\/>/, ""), good),
        /one GPU cell per provisioned GPU/,
      );
    });

    it("the XML check rejects a malformed document", () => {
      assert.throws(() => parseXml("<svg><g></svg>"), /closes <g>/);
      assert.throws(() => parseXml('<svg a="1" a="2"/>'), /duplicate attribute/);
      assert.throws(() => parseXml("<svg>a & b</svg>"), /bad "&"/);
    });
  });

  it("vLLM and TensorRT-LLM pictures differ: each names its engine and version; a declared prompt moves the KV arrow", async () => {
    const svgOf = async (over: string[]) => {
      const code = await runCli(["p5en-8gpu", ...over, "--out", tmp], {
        ...defaultDeps(),
        stdout: () => undefined,
        stderr: () => undefined,
      });
      assert.equal(code, 0);
      const dir = path.join(tmp, "p5en-8gpu");
      return {
        svg: fs.readFileSync(path.join(dir, "topology.svg"), "utf8"),
        plan: JSON.parse(fs.readFileSync(path.join(dir, "plan.json"), "utf8")) as Plan,
      };
    };
    const vllm = await svgOf([]);
    const trt = await svgOf(["--set", "inference.backend=trtllm"]);
    assert.notEqual(vllm.svg, trt.svg);
    assert.match(vllm.svg, /on vLLM \d/);
    assert.match(trt.svg, /on TensorRT-LLM \d/);
    const long = await svgOf(["--set", "inference.workload={isl: 3000, osl: 300, concurrency: 64}"]);
    const f = long.plan.fit!.find((x) => x.role === "prefill")!;
    assert.equal(f.kvPromptTokens, 3000);
    assert.ok(long.svg.includes(`KV ~${f.kvTransferMsAtPrompt} ms`));
    assert.ok(long.svg.includes("expected for the declared workload&apos;s 3,000-token prompt"));
  });
});
