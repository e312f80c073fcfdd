/**
 * Every key of every Helm release we render is a key its chart reads at the version we pin
 * (facts/chart-<chart>.json), or one of its fetched subcharts reads (their own chart-<subchart>.json, at the
 * version the chart depends on); values under keys the chart renders whole (nodeSelector, tolerations, ...)
 * are free-form.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { loadBalancerControllerValues } from "../../components/cluster/render";
import { charts } from "../../components/versions";
import { fakeCheckout } from "../helpers/fake-checkout";
import { extractChart, ChartFacts } from "./extract/helm-values";
import { FactFile } from "./facts";
import { chartFactFile as factsFor, unknownValueKeys, withSubcharts } from "./helm-contract";
import { ALL_STACKS, readRelease, RenderedRelease, renderedStacks } from "./rendered";

/** The facts are of `version`, or name it in their ref and say why they were read at another commit. */
const ofVersion = (f: FactFile<ChartFacts>, version: string) =>
  f.facts.version === version ||
  (f.provenance.ref.startsWith(`v${version} `) && /release branch/.test(f.provenance.notes ?? ""));

/**
 * Charts whose pinned version no reachable snapshot holds, and the version the facts were read at instead
 * (provenance notes say why). Re-extracting at the pin makes the entry fail: delete it then.
 */
const VERSION_GAPS: Readonly<Record<string, string>> = { "aws-load-balancer-controller": "3.5.0" };

/**
 * Rendered chart versions no readable snapshot holds, checked against the closest facts instead: release dynamo-1.6
 * renders dynamo-platform 1.6.2 (tag 28f9765 is in no copy readable here; the newest stored chart is 1.3.0), so its
 * values are held against the 1.0 line's keys. It sets one key (`dynamo-operator.namespaceRestriction.enabled`), and
 * the test below fails if it sets any other. Extracting chart-dynamo-platform at 1.6.2 makes the entry fail: delete it.
 */
const RENDERED_GAPS: Readonly<Record<string, { readonly rendered: string; readonly keys: readonly string[] }>> = {
  "dynamo-platform": { rendered: "1.6.2", keys: ["dynamo-operator.namespaceRestriction.enabled"] },
};

/** Dot-joined key paths of every leaf of a values object. */
const leafKeys = (v: unknown, at = ""): string[] =>
  v !== null && typeof v === "object" && !Array.isArray(v)
    ? Object.entries(v).flatMap(([k, x]) => leafKeys(x, at ? `${at}.${k}` : k))
    : [at];

const hasValues = (r: RenderedRelease) => Object.keys(r.values).length > 0;

describe("contract: rendered Helm values against the pinned charts' keys", function () {
  this.timeout(120000);
  let releases: { stack: string; r: RenderedRelease }[] = [];
  before(async () => {
    releases = (await renderedStacks(ALL_STACKS)).flatMap((s) => s.releases.map((r) => ({ stack: s.stack, r })));
  });

  it("the facts are of the chart versions versions.ts pins (dynamo-platform: the 1.0 line, see its notes)", () => {
    for (const pin of [
      charts.efaDevicePlugin,
      charts.nvidiaDevicePlugin,
      charts.dynamoPlatform,
      charts.kubePrometheusStack,
      charts.dcgmExporter,
    ]) {
      const f = factsFor(pin.chart);
      assert.ok(f, `no facts/chart-${pin.chart}.json`);
      assert.ok(
        ofVersion(f, pin.version),
        `${pin.chart}: facts are of ${f.facts.version} (${f.provenance.ref}), versions.ts pins ${pin.version}`,
      );
    }
  });

  it("every release that sets values has chart facts at its rendered version, and every key it sets is read", () => {
    const withValues = releases.filter((x) => hasValues(x.r));
    assert.ok(withValues.length >= 6, `${withValues.length} releases with values`);
    const problems = withValues.flatMap(({ stack, r }) => {
      const f = factsFor(r.chart);
      if (!f)
        return [
          `${stack}/${r.file}: no facts/chart-${r.chart}.json; extract the chart's keys (tests/contracts/extract/helm-values.ts)`,
        ];
      const gap = RENDERED_GAPS[r.chart];
      if (gap && ofVersion(f, gap.rendered))
        return [`${stack}/${r.file}: ${r.chart} ${gap.rendered} facts exist now: delete its RENDERED_GAPS entry`];
      if (gap?.rendered === r.version) {
        const extra = leafKeys(r.values).filter((k) => !gap.keys.includes(k));
        if (extra.length > 0)
          return [
            `${stack}/${r.file}: ${r.chart} ${r.version} sets ${extra.join(", ")}, which no readable ${r.version} chart confirms`,
          ];
      } else if (!ofVersion(f, r.version))
        return [`${stack}/${r.file}: renders ${r.chart} ${r.version}, the facts are of ${f.facts.version}; re-extract`];
      const { facts, problems } = withSubcharts(f.facts);
      return [...problems, ...unknownValueKeys(facts, r.values)].map((p) => `${stack}/${r.file}: ${p}`);
    });
    assert.deepEqual(problems, []);
  });

  it("the optional AWS Load Balancer Controller values (not in the stacks' render) are keys its chart reads", () => {
    const f = factsFor(charts.awsLoadBalancerController.chart)!;
    assert.ok(
      ofVersion(f, charts.awsLoadBalancerController.version) || VERSION_GAPS[f.facts.chart] === f.facts.version,
      `${f.facts.chart}: facts are of ${f.facts.version}, versions.ts pins ${charts.awsLoadBalancerController.version}`,
    );
    const values = loadBalancerControllerValues({
      clusterName: "c",
      region: "us-east-2",
      vpcId: "vpc-1",
      roleArn: "arn:aws:iam::1:role/r",
      serviceAccount: "aws-load-balancer-controller",
    });
    assert.deepEqual(unknownValueKeys(f.facts, values), []);
    assert.deepEqual(unknownValueKeys(f.facts, { ...values, vpcID: "vpc-1" }), [
      "vpcID: aws-load-balancer-controller 3.5.0 reads no such key; did you mean vpcId?",
    ]);
  });

  it("mutations: an unknown key, a misspelled nested key, and a map where the chart reads one value fail; free-form keys pass", () => {
    const f = factsFor("nvidia-device-plugin")!.facts;
    assert.deepEqual(unknownValueKeys(f, { mofedEnable: false }), [
      "mofedEnable: nvidia-device-plugin 0.20.0 reads no such key; did you mean mofedEnabled?",
    ]);
    assert.deepEqual(unknownValueKeys(f, { gfd: { enabeld: true } }), [
      "gfd.enabeld: nvidia-device-plugin 0.20.0 reads no such key",
    ]);
    assert.deepEqual(unknownValueKeys(f, { mofedEnabled: { on: true } }), [
      "mofedEnabled: nvidia-device-plugin 0.20.0 reads it as one value, not a map of keys",
    ]);
    assert.deepEqual(
      unknownValueKeys(f, { nodeSelector: { anything: "x" }, affinity: { podAntiAffinity: {} }, nfd: { whatever: 1 } }),
      [],
    );
    const d = factsFor("dynamo-platform")!.facts;
    assert.deepEqual(
      unknownValueKeys(d, { "dynamo-operator": { namespaceRestriction: { enabled: false, enabledd: true } } }).map(
        (p) => p.split(":")[0],
      ),
      ["dynamo-operator.namespaceRestriction.enabledd"],
    );
  });

  it("a fetched subchart with facts is checked under its alias (global shared); without facts or at another version it stays opaque", () => {
    const parent: ChartFacts = {
      chart: "p",
      version: "1.0.0",
      keys: ["q", "x"],
      freeForm: [],
      opaque: ["q"],
      dependencies: { q: { chart: "nats", version: "2.*" } },
    };
    const sub: ChartFacts = {
      chart: "nats",
      version: "2.4.0",
      keys: ["global", "global.g", "port", "pod", "pod.labels"],
      freeForm: ["pod.labels"],
      opaque: [],
    };
    const { facts, problems } = withSubcharts(parent, (c) => (c === "nats" ? sub : undefined));
    assert.deepEqual(
      [problems, facts.keys, facts.freeForm, facts.opaque],
      [[], ["global", "global.g", "q", "q.pod", "q.pod.labels", "q.port", "x"], ["q.pod.labels"], []],
    );
    assert.deepEqual(
      unknownValueKeys(facts, { global: { g: 1 }, q: { port: 1, pod: { labels: { any: "x" } }, Port: 2 } }),
      ["q.Port: p 1.0.0 reads no such key; did you mean q.port?"],
    );
    assert.deepEqual(withSubcharts(parent, () => undefined).facts.opaque, ["q"]);
    const skewed = withSubcharts(parent, () => ({ ...sub, version: "3.0.0" }));
    assert.deepEqual(
      [skewed.problems, skewed.facts.opaque],
      [["q: p 1.0.0 depends on nats 2.*, facts/chart-nats.json is of 3.0.0; re-extract it"], ["q"]],
    );
  });

  it("a release installed from a chart tarball URL is matched to its chart by the tarball's name", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "helm-release-")), "p.values.yaml");
    try {
      fs.writeFileSync(
        file,
        "# chart: https://helm.ngc.nvidia.com/nvidia/ai-dynamo/charts/dynamo-platform-1.0.1.tgz  version: \na: 1\n",
      );
      assert.deepEqual(readRelease(file), {
        file: "p.values.yaml",
        chart: "dynamo-platform",
        version: "1.0.1",
        values: { a: 1 },
      });
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it("the extractor reads values.yaml, template reads, toYaml/with blocks, vendored and fetched subcharts, defaults", () => {
    const { root, put, remove } = fakeCheckout("helm-extract-");
    try {
      put(
        "c/Chart.yaml",
        "name: c\nversion: 1.2.3\ndependencies:\n  - {name: sub, repository: file://sub}\n  - {name: nats, alias: queue, version: 2.*, repository: https://x}\n",
      );
      put("c/values.yaml", "a:\n  b: 1\nlabels: {}\nsub: {x: 1}\n");
      put(
        "c/templates/d.yaml",
        "{{ .Values.hidden.flag }}\n{{- with .Values.tolerations }}\n{{- toYaml . | nindent 8 }}\n{{- end }}\n{{ toYaml .Values.affinity }}\n",
      );
      put("c/sub/Chart.yaml", "name: sub\nversion: 0.1.0\n");
      put("c/sub/values.yaml", "y: 2\n");
      put("c/sub/templates/t.yaml", "{{ .Values.z.w }} {{ .Values.global.g }}\n");
      assert.deepEqual(extractChart(root, "c", { sub: "c/sub" }, ["a.b", "labels"]), {
        chart: "c",
        version: "1.2.3",
        keys: [
          "a",
          "a.b",
          "affinity",
          "global",
          "global.g",
          "hidden",
          "hidden.flag",
          "labels",
          "queue",
          "sub",
          "sub.x",
          "sub.y",
          "sub.z",
          "sub.z.w",
          "tolerations",
        ],
        freeForm: ["affinity", "labels", "tolerations"],
        opaque: ["queue"],
        dependencies: { queue: { chart: "nats", version: "2.*" } },
        defaults: { "a.b": 1, labels: {} },
      });
      assert.throws(() => extractChart(root, "c", {}, ["a.c"]), /--default a\.c: c\/values\.yaml has no such key/);
    } finally {
      remove();
    }
  });
});
