/**
 * The Frontend can load the model card every worker publishes, for every cache mode and both backends, by
 * Dynamo's own rules (tests/contracts/facts/dynamo-model-card.json): a worker whose `--model` is a path on its
 * disk publishes that path's files; otherwise the card names `hf://<id>/` and the Frontend downloads by id, or,
 * offline, reads its hub cache (HF_HUB_CACHE, then HF_HOME/hub). `/health` is 200 either way, so nothing but
 * this check (and verify gate B after a deploy) sees a Frontend that cannot load the card.
 */
import { strict as assert } from "assert";
import { GraphService } from "../../components/_shared/names";
import { Backend, InferenceSettings } from "../../components/inference";
import { modelCacheDir, PREFETCH_FILE, PREFETCH_SCRIPT } from "../../components/inference/cache";
import type { DgdService } from "../../components/inference/dgd";
import { renderGraph, DgdObject } from "../../components/inference/graph";
import { argValue, envOf, IMAGE, mainOf, pool, resolved } from "../helpers/inference-fixtures";
import { loadFacts } from "./facts";

interface CardFacts {
  readonly cardRewrittenToHfOnlyWhenSourceMissing: string;
  readonly workerSourcePathIsModelArg: string;
  readonly frontendUsesLocalFilesFirst: string;
  readonly frontendCallsDownloadConfig: string;
  readonly offlineReadsHubCacheFirst: string;
  readonly hubCacheDirOrder: readonly string[];
  readonly healthAlways200: string;
  /** The files a card names, which the Frontend reads (model_card.rs). */
  readonly cardFiles: readonly string[];
  readonly heldAt: Readonly<Record<string, Omit<CardFacts, "heldAt" | "releasesCovered">>>;
  readonly releasesCovered: Readonly<Record<string, string>>;
}
const F = loadFacts<CardFacts>("dynamo-model-card").facts;

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir.replace(/\/+$/, "")}/`);
const literal = (s: DgdService, name: string) => {
  const v = envOf(s)[name];
  return typeof v === "string" ? v : undefined;
};

/** Where a path published by a worker is readable in the Frontend, or why not. */
function localProblems(frontend: DgdService, source: string): string[] {
  const mount = (mainOf(frontend).volumeMounts ?? []).find((m) => under(source, m.mountPath));
  if (!mount) return [`the workers publish ${source}; the Frontend mounts nothing there`];
  const fillers = (frontend.extraPodSpec?.initContainers ?? []).filter((c) => {
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    const writes = (c.volumeMounts ?? []).find((m) => m.name === mount.name && !m.readOnly);
    return (
      writes !== undefined &&
      (c.command ?? []).some((a) => a.endsWith(`/${PREFETCH_FILE}`)) &&
      env.METADATA_ONLY === "1" &&
      modelCacheDir(env.CACHE_ROOT ?? "", env.MODEL_ID ?? "", env.MODEL_REVISION) === source
    );
  });
  return fillers.length === 1 ? [] : [`no init container fetches ${source}'s config files into ${mount.mountPath}`];
}

/** Whether the Frontend can get an `hf://` card: offline from the workers' own hub cache, or by download. */
function hubProblems(g: DgdObject, frontend: DgdService, worker: DgdService): string[] {
  if (literal(frontend, "HF_HUB_OFFLINE") !== "1")
    return frontend.envFromSecret ? [] : ["the Frontend downloads by model id but gets no token"];
  const home = literal(frontend, "HF_HOME");
  if (!F.hubCacheDirOrder.includes("HF_HOME/hub") || !home || home !== literal(worker, "HF_HOME"))
    return ["the Frontend is offline but does not read the workers' HF_HOME"];
  const pvc = (worker.volumeMounts ?? []).find((m) => under(home, m.mountPoint));
  const mount = (mainOf(frontend).volumeMounts ?? []).find((m) => under(home, m.mountPath));
  const vol = (frontend.extraPodSpec?.volumes ?? []).find((v) => v.name === mount?.name);
  const shared = pvc && vol?.persistentVolumeClaim?.claimName === pvc.name && pvc.mountPoint === mount?.mountPath;
  if (!shared) return [`the Frontend is offline but ${home} is not the workers' volume (${g.metadata.name})`];
  return [];
}

/** Every reason the Frontend could not load what the graph's workers publish. */
export function cardProblems(g: DgdObject): string[] {
  const frontend = g.spec.services[GraphService.Frontend];
  const out: string[] = [];
  for (const key of [GraphService.Prefill, GraphService.Decode]) {
    const worker = g.spec.services[key];
    const source = argValue(worker, "--model");
    const onWorkerDisk = (mainOf(worker).volumeMounts ?? []).some((m) => under(source, m.mountPath));
    out.push(...(onWorkerDisk ? localProblems(frontend, source) : hubProblems(g, frontend, worker)));
  }
  return [...new Set(out)];
}

const NVME = { localNvme: { mountPath: "/mnt/k8s-disks/0", sizeGB: 30400 } };
const MODES: Record<string, Partial<InferenceSettings>> = {
  none: { modelCacheMode: "none" },
  efs: { modelCache: { storageClassName: "efs", sizeGiB: 100 } },
  "local-nvme": { modelCacheMode: "local-nvme", gpuPool: pool("p5en.48xlarge", 2, true, NVME) },
  "local-nvme, a pinned commit": {
    modelCacheMode: "local-nvme",
    gpuPool: pool("p5en.48xlarge", 2, true, NVME),
    modelRevision: "0123456789abcdef0123456789abcdef01234567",
  },
};

describe("contracts: the Frontend can load every worker's model card (facts/dynamo-model-card.json; self-hosted: dynamo-runtime-settings.json)", () => {
  it("the facts name where each rule is, at the pinned runtime and the newest readable main", () => {
    for (const facts of [F, ...Object.values(F.heldAt)])
      for (const key of ["cardRewrittenToHfOnlyWhenSourceMissing", "frontendUsesLocalFilesFirst", "healthAlways200"])
        assert.match(String(facts[key as keyof typeof facts]), /^lib\/[\w/.]+\.rs:\d+$/, key);
    assert.deepEqual(F.hubCacheDirOrder, ["HF_HUB_CACHE", "HF_HOME/hub"]);
    assert.ok(
      Object.keys(F.releasesCovered).some((k) => k.startsWith("28f9765")),
      "Dynamo 1.6.2 is named",
    );
  });

  for (const backend of ["vllm", "trtllm"] as Backend[])
    for (const [mode, over] of Object.entries(MODES)) {
      it(`seed (Frontend copy), ${backend}, ${mode}: readable, and the token stays out of the Frontend unless it downloads`, () => {
        const g = renderGraph(resolved("p5en-8x1gpu", backend, { ...over, release: "seed" }), IMAGE);
        assert.deepEqual(cardProblems(g), []);
        const frontend = g.spec.services[GraphService.Frontend];
        assert.equal(frontend.envFromSecret !== undefined, mode === "none", "token in the Frontend's main container");
      });
      it(`dynamo-1.6 (self-hosted cards), ${backend}, ${mode}: the Frontend gets no copy, no volume and no token`, () => {
        const g = renderGraph(resolved("p5en-8x1gpu", backend, { ...over, release: "dynamo-1.6" }), IMAGE);
        const frontend = g.spec.services[GraphService.Frontend];
        assert.equal(frontend.envFromSecret, undefined, "no token");
        assert.deepEqual(frontend.extraPodSpec?.initContainers ?? [], [], "no model-config init container");
        assert.deepEqual(frontend.extraPodSpec?.volumes ?? [], [], "no copy of the model");
        assert.deepEqual(mainOf(frontend).volumeMounts ?? [], []);
      });
    }

  it("the Frontend's init container fetches exactly the files a card names (the prefetch's METADATA_FILES)", () => {
    const tuple = /^METADATA_FILES = \(([^)]*)\)$/m.exec(PREFETCH_SCRIPT)?.[1];
    assert.ok(tuple, "prefetch.py defines METADATA_FILES");
    const names = [...tuple.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(names, [...F.cardFiles].sort());
  });

  it("fails on a Frontend that mounts nothing (the card's local paths do not exist there)", () => {
    const g = renderGraph(resolved("p5en-8x1gpu", "vllm", { ...MODES["local-nvme"], release: "seed" }), IMAGE);
    const frontend = g.spec.services[GraphService.Frontend];
    const bare: DgdObject = {
      ...g,
      spec: {
        ...g.spec,
        services: {
          ...g.spec.services,
          [GraphService.Frontend]: { ...frontend, extraPodSpec: { mainContainer: { image: IMAGE } } },
        },
      },
    };
    assert.match(
      cardProblems(bare).join("\n"),
      /the workers publish \/model-cache\/models\/.*; the Frontend mounts nothing/,
    );
  });

  it("fails on an offline Frontend without the workers' volume (efs)", () => {
    const g = renderGraph(resolved("p5en-8x1gpu", "vllm", { ...MODES.efs, release: "seed" }), IMAGE);
    const frontend = g.spec.services[GraphService.Frontend];
    const mutated: DgdObject = {
      ...g,
      spec: {
        ...g.spec,
        services: {
          ...g.spec.services,
          [GraphService.Frontend]: { ...frontend, extraPodSpec: { ...frontend.extraPodSpec, volumes: [] } },
        },
      },
    };
    assert.match(cardProblems(mutated).join("\n"), /is not the workers' volume/);
  });
});
