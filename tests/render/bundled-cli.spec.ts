/**
 * `npm run render` runs the render from one esbuild bundle of our TypeScript (tools/render/run.cjs), the SDK left to
 * node, with Pulumi's closure-serialization libraries deferred to their first use (tools/render/cli/defer-sdk.ts).
 * What holds it: the bundle writes what the TypeScript render writes (the one difference is the text of the
 * dynamic provider's code in resources.json: the command leaves its serialization to `pulumi up` and says so, the
 * in-process render serializes it); a render loads no closure-serialization library; --help answers
 * without loading the SDK; a deferred library loads, whole, on first use; a changed source is rebuilt whatever its
 * modification time says (a fresh clone, cp -p or tar set those arbitrarily), and an unchanged one is not. Slow set: it
 * spawns the render, esbuild and node.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { transformSync } from "esbuild";
import { defaultDeps, runCli } from "../../tools/render/cli/cli";
import { PROVIDER_NOT_SERIALIZED } from "../../tools/render/cli/defer-sdk";

const ROOT = path.resolve(__dirname, "..", "..");
const RUN = path.join(ROOT, "tools", "render", "run.cjs");
const PROBE = path.join(__dirname, "fixtures", "loaded-modules.cjs");
const CLOSURE_PROBE = path.join(__dirname, "fixtures", "closure-libraries.cjs");

/** Every file under `dir`, relative, sorted. */
const filesOf = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesOf(path.join(dir, e.name)).map((f) => path.join(e.name, f)) : [e.name]))
    .sort();

/** resources.json without the dynamic provider's serialized function text (compiler-specific spelling). */
const withoutFunctionText = (text: string) => text.replace(/"__provider": "(?:[^"\\]|\\.)*"/g, '"__provider": "<fn>"');
/** Every dynamic provider's text in resources.json. */
const providerTexts = (text: string) =>
  [...text.matchAll(/"__provider": ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!) as string);

describe("render: the bundled command", function () {
  this.timeout(240000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bundled-cli-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("writes what the TypeScript render writes, for every shipped stack", async () => {
    const stacks = fs
      .readdirSync(path.join(ROOT, "stacks"))
      .flatMap((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.slice(1) ?? []);
    assert.ok(stacks.length >= 2, stacks.join(", "));
    let providers = 0;
    for (const stack of stacks) {
      const p = spawnSync(process.execPath, [RUN, stack, "--out", path.join(tmp, "bundled")], {
        cwd: ROOT,
        encoding: "utf8",
      });
      assert.equal(p.status, 0, p.stderr);
      const quiet = { ...defaultDeps(), stdout: () => undefined, stderr: () => undefined };
      assert.equal(await runCli([stack, "--out", path.join(tmp, "ts")], quiet), 0);
      const [a, b] = [path.join(tmp, "bundled", stack), path.join(tmp, "ts", stack)];
      assert.deepEqual(filesOf(a), filesOf(b));
      for (const f of filesOf(a)) {
        const [x, y] = [fs.readFileSync(path.join(a, f), "utf8"), fs.readFileSync(path.join(b, f), "utf8")];
        if (f === "resources.json") {
          assert.equal(withoutFunctionText(x), withoutFunctionText(y), `${stack}/${f}`);
          // The command leaves serialization to `pulumi up` and says so; the in-process render serializes for real.
          for (const t of providerTexts(x)) assert.equal(t, PROVIDER_NOT_SERIALIZED, `${stack}: the command's text`);
          for (const t of providerTexts(y)) assert.match(t, /exports\.handler/, `${stack}: the in-process text`);
          providers += providerTexts(x).length;
        } else assert.equal(x, y, `${stack}/${f}`);
      }
    }
    assert.ok(providers > 0, "some shipped stack has a dynamic resource");
  });

  it("a render loads neither closure-serialization library (each stays the stand-in that would load it)", () => {
    const p = spawnSync(
      process.execPath,
      ["--require", CLOSURE_PROBE, RUN, "p5en-8gpu", "--out", path.join(tmp, "probe")],
      { cwd: ROOT, encoding: "utf8" },
    );
    assert.equal(p.status, 0, p.stderr);
    assert.deepEqual(JSON.parse(/closure-libraries: (.*)/.exec(p.stderr)![1]!), {
      "@npmcli/arborist": "stand-in",
      typescript: "stand-in",
    });
  });

  it("rebuilds when a source's bytes change, even with a modification time older than the bundle", () => {
    // A copy of the sources with a node_modules of its own (each package linked to ours, no .cache), so that its
    // bundle and stamp are its own.
    const root = path.join(tmp, "clone");
    for (const d of ["components", "program", "policy", "serving", "tools"]) {
      fs.cpSync(path.join(ROOT, d), path.join(root, d), { recursive: true });
    }
    fs.copyFileSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
    fs.mkdirSync(path.join(root, "node_modules"));
    for (const e of fs.readdirSync(path.join(ROOT, "node_modules")).filter((e) => e !== ".cache")) {
      fs.symlinkSync(path.join(ROOT, "node_modules", e), path.join(root, "node_modules", e));
    }
    const help = () => {
      const p = spawnSync(process.execPath, [path.join(root, "tools", "render", "run.cjs"), "--help"], {
        cwd: tmp,
        encoding: "utf8",
      });
      assert.equal(p.status, 0, p.stderr);
      return p.stdout.split("\n")[0];
    };
    const bundle = path.join(root, "node_modules", ".cache", "dynamo-efa", "render.cjs");
    assert.match(help(), /^usage: npm run render/);
    const built = fs.statSync(bundle);
    // The same bytes with a new modification time: no rebuild.
    const cli = path.join(root, "tools", "render", "cli", "cli.ts");
    fs.utimesSync(cli, new Date(), new Date(Date.now() + 60000));
    help();
    assert.equal(fs.statSync(bundle).ino, built.ino, "an unchanged source is not rebuilt");
    // New bytes with a modification time from 2001: rebuilt, and the change answers.
    fs.writeFileSync(
      cli,
      fs.readFileSync(cli, "utf8").replace("usage: npm run render", "usage: npm run render-changed"),
    );
    fs.utimesSync(cli, new Date(1e12), new Date(1e12));
    assert.match(help(), /^usage: npm run render-changed/);
    assert.deepEqual(
      fs.readdirSync(path.dirname(path.dirname(bundle))),
      ["dynamo-efa"],
      "the build's own folder is gone",
    );
  });

  it("--help answers without loading the program or the SDK", () => {
    const p = spawnSync(process.execPath, ["--require", PROBE, RUN, "--help"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(p.status, 0, p.stderr);
    assert.match(p.stdout, /^usage: npm run render/);
    const loaded = JSON.parse(/loaded-modules: (.*)/.exec(p.stderr)![1]!) as string[];
    assert.ok(
      loaded.some((m) => m.endsWith("render.cjs")),
      "the probe sees the bundle",
    );
    assert.deepEqual(
      loaded.filter((m) => /@pulumi[\\/]pulumi[\\/]index/.test(m)),
      [],
    );
  });

  it("a deferred library is not loaded with the SDK, and loads whole on its first use", () => {
    // Compiled with esbuild (as the bundle is) and run by plain node: tsx's own loader inspects every module's
    // exports, which would load the stand-in's target at once.
    // Beside the bundle, so that it resolves the SDK from the repository's node_modules as the bundle does.
    const compiled = path.join(ROOT, "node_modules", ".cache", "dynamo-efa", `defer-sdk.${process.pid}.cjs`);
    fs.mkdirSync(path.dirname(compiled), { recursive: true });
    const source = fs.readFileSync(path.join(ROOT, "tools", "render", "cli", "defer-sdk.ts"), "utf8");
    fs.writeFileSync(compiled, transformSync(source, { loader: "ts", format: "cjs", platform: "node" }).code);
    const code = `
      const { isProxy } = require("node:util").types;
      const { deferSdkClosureModules } = require(${JSON.stringify(compiled)});
      const deferred = deferSdkClosureModules();
      require("@pulumi/pulumi");
      const sdk = require("node:module").createRequire(require.resolve("@pulumi/pulumi/package.json"));
      const file = sdk.resolve("typescript");
      const standIn = isProxy(require.cache[file].exports);
      const ts = sdk("typescript");
      const kind = typeof ts.SyntaxKind;
      console.log(JSON.stringify({ deferred, standIn, kind, version: ts.version, real: !isProxy(require.cache[file].exports) }));
    `;
    const p = spawnSync(process.execPath, ["-e", code], { cwd: ROOT, encoding: "utf8" });
    fs.rmSync(compiled, { force: true });
    assert.equal(p.status, 0, p.stderr);
    const r = JSON.parse(p.stdout) as {
      deferred: string[];
      standIn: boolean;
      kind: string;
      version: string;
      real: boolean;
    };
    assert.deepEqual(r.deferred, ["@npmcli/arborist", "typescript"]);
    assert.equal(r.standIn, true, "loading @pulumi/pulumi left typescript unloaded");
    assert.equal(r.real, true, "the first use put the real module in require.cache");
    assert.equal(r.kind, "object", "the real module answers through the stand-in");
    assert.match(r.version, /^\d+\.\d+/);
  });
});
