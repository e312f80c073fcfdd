/**
 * The rendered plan the contract tests hold to the upstream facts: both stacks rendered once per test run with
 * the real program (tools/render, as tests/render/stacks.spec.ts does), read back generically -- whatever
 * manifests and Helm releases the program renders -- plus the golden inference graphs.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { at } from "./json";

/** The stacks of one system each, whose graphs the DGD and env-var contracts read (in `npm test`). */
export const STACKS = ["p5en-1gpu", "p5en-8gpu"] as const;
/**
 * Every shipped stack: the cluster stack installs the shared monitoring with other values (no dashboard, Grafana's
 * dashboard sidecar), the model stacks none; the Helm values contract (a slow spec) reads them all.
 */
export const ALL_STACKS = [...STACKS, "p5en-cluster", "p5en-llama-8b", "p5en-llama-70b"] as const;

/** One Helm release as render writes it (helm/<release>.values.yaml with a chart/version header). */
export interface RenderedRelease {
  readonly file: string;
  readonly chart: string;
  readonly version: string;
  readonly values: Record<string, unknown>;
}

/** One object with where it came from. */
export interface Sourced<T> {
  readonly source: string;
  readonly obj: T;
}

export interface RenderedStack {
  readonly stack: string;
  readonly manifests: readonly Sourced<unknown>[];
  readonly releases: readonly RenderedRelease[];
}

/** Reads one helm/<release>.values.yaml that render wrote. */
export function readRelease(file: string): RenderedRelease {
  const text = fs.readFileSync(file, "utf8");
  const head = /# chart: (\S+)\s+version: (\S*)/.exec(text);
  if (!head) throw new Error(`${file}: no "# chart: <name>  version: <v>" header`);
  // A chart installed from its tarball URL (.../charts/<name>-<version>.tgz) names itself in the file name.
  const tgz = /([^/]+?)-(\d[\w.+-]*)\.tgz$/.exec(head[1]);
  const chart = tgz ? tgz[1] : head[1];
  const version = head[2] || (tgz ? tgz[2] : "");
  return { file: path.basename(file), chart, version, values: (YAML.parse(text) ?? {}) as Record<string, unknown> };
}

const cache = new Map<string, Promise<RenderedStack[]>>();

/** Renders `stacks` once (memoized) into a temp dir that is removed afterwards. */
export function renderedStacks(stacks: readonly string[] = STACKS): Promise<RenderedStack[]> {
  const key = stacks.join(",");
  if (!cache.has(key)) cache.set(key, renderAll(stacks));
  return cache.get(key)!;
}

function renderAll(stacks: readonly string[]): Promise<RenderedStack[]> {
  return (async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "contracts-"));
    try {
      const out: RenderedStack[] = [];
      for (const stack of stacks) {
        const log: string[] = [];
        const code = await runCli([stack, "--out", tmp], {
          ...defaultDeps(),
          stdout: (l) => log.push(l),
          stderr: (l) => log.push(l),
        });
        if (code !== 0) throw new Error(`render ${stack} exited ${code}:\n${log.join("\n")}`);
        const dir = path.join(tmp, stack);
        const manifests = fs
          .readdirSync(path.join(dir, "manifests"))
          .sort()
          .map((f) => ({
            source: `${stack}/manifests/${f}`,
            obj: YAML.parse(fs.readFileSync(path.join(dir, "manifests", f), "utf8")),
          }));
        // A model stack installs no Helm release (the platform, device plugins and monitoring are its cluster's).
        const helm = path.join(dir, "helm");
        const releases = (fs.existsSync(helm) ? fs.readdirSync(helm) : [])
          .filter((f) => f.endsWith(".values.yaml"))
          .sort()
          .map((f) => readRelease(path.join(helm, f)));
        out.push({ stack, manifests, releases });
      }
      return out;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  })();
}

/** Every rendered DynamoGraphDeployment of both stacks and the golden inference graphs. */
export async function renderedDgds(): Promise<Sourced<unknown>[]> {
  const rendered = (await renderedStacks()).flatMap((s) =>
    s.manifests.filter((m) => at(m.obj, "kind") === "DynamoGraphDeployment"),
  );
  const goldenDir = path.join(__dirname, "..", "golden", "inference");
  const golden = fs
    .readdirSync(goldenDir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) =>
      YAML.parseAllDocuments(fs.readFileSync(path.join(goldenDir, f), "utf8")).map((d, i) => ({
        source: `tests/golden/inference/${f}#${i}`,
        obj: d.toJS(),
      })),
    )
    .filter((m) => at(m.obj, "kind") === "DynamoGraphDeployment");
  return [...rendered, ...golden];
}

/** Every `{name}` item of an `env`/`envs` list anywhere in `obj`, with its path. */
export function envNames(obj: unknown, at = ""): { path: string; name: string }[] {
  if (Array.isArray(obj)) return obj.flatMap((x, i) => envNames(x, `${at}[${i}]`));
  if (obj === null || typeof obj !== "object") return [];
  return Object.entries(obj as Record<string, unknown>).flatMap(([k, v]) => {
    const here = at ? `${at}.${k}` : k;
    const own =
      (k === "env" || k === "envs") && Array.isArray(v)
        ? v.flatMap((e, i) => (typeof e?.name === "string" ? [{ path: `${here}[${i}]`, name: e.name as string }] : []))
        : [];
    return [...own, ...envNames(v, here)];
  });
}
