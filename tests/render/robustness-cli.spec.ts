/**
 * `render`'s arguments: --policy-config is checked against the pack, the README's exit-code tables
 * match the codes, --help and usage errors never load the program, and relative paths resolve against
 * INIT_CWD (where npm was run). In-process through the CLI (render-harness.ts), and as child processes
 * where loading and the working directory matter.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ExitCode, EXIT_CODES_OF } from "../../tools/_shared/exit-codes";
import { RENDER_CLI, ROOT, run, STACK_1 } from "./render-harness";

describe("render robustness: arguments first, checked against the pack", function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-robust-cli-"))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("--policy-config is checked against the pack", () => {
    const cases: [string, unknown, RegExp][] = [
      [
        "a capitalised level",
        { "no-noop-nixl-env": "Mandatory" },
        /- no-noop-nixl-env: must be one of "advisory", "mandatory", "remediate", "disabled"; got "Mandatory"; did you mean "mandatory"\?/,
      ],
      ["a misspelt level", { "no-noop-nixl-env": "mandatry" }, /did you mean "mandatory"\?/],
      ["a level Pulumi does not have", { all: "blocking" }, /- all: must be one of/],
      [
        "an unknown policy name",
        { "no-noop-nixl-envs": "mandatory" },
        /- no-noop-nixl-envs: not a policy of the pack; did you mean "no-noop-nixl-env"\?/,
      ],
      [
        "a setting of the wrong type",
        { "imdsv2-required": { maxHopLimit: "abc" } },
        /- imdsv2-required\.maxHopLimit: must be of type integer; got "abc"/,
      ],
      ["an unknown setting", { "imdsv2-required": { maxHopLimt: 1 } }, /did you mean "maxHopLimit"\?/],
    ];
    for (const [why, cfg, re] of cases) {
      it(`${why} is exit 2 naming the key`, async () => {
        const file = path.join(tmp, "pack-config.json");
        fs.writeFileSync(file, JSON.stringify(cfg));
        const r = await run(["p5en-1gpu", "--out", tmp, "--policy-config", file]);
        assert.equal(r.code, ExitCode.InvalidConfig, r.err);
        assert.match(r.err, re);
      });
    }
    it("docs/RENDER.md's and docs/VERIFY.md's exit-code tables list every code render and verify return", () => {
      const doc = (f: string) => fs.readFileSync(path.join(ROOT, "docs", f), "utf8");
      const table = (readme: string) => {
        const section = readme;
        const rows = section.slice(section.indexOf("| exit | meaning |")).split("\n").slice(2);
        const body = rows.slice(
          0,
          rows.findIndex((l) => !l.startsWith("|")),
        );
        return body
          .flatMap((l) =>
            l
              .split("|")[1]
              .split(",")
              .map((c) => Number(c.trim())),
          )
          .sort((a, b) => a - b);
      };
      const sorted = (codes: readonly number[]) => [...codes].sort((a, b) => a - b);
      assert.deepEqual(table(doc("RENDER.md")), sorted(EXIT_CODES_OF.render));
      assert.deepEqual(table(doc("VERIFY.md")), sorted(EXIT_CODES_OF.verify));
      assert.deepEqual(
        sorted([...new Set(Object.values(EXIT_CODES_OF).flat())]),
        sorted([...new Set(Object.values(ExitCode))]),
        "every code of the family is some command's",
      );
    });

    it("no doc's example file is named policy.json (the render's own output)", () => {
      for (const f of ["README.md", "docs/RENDER.md", "docs/SECURITY.md"])
        assert.doesNotMatch(fs.readFileSync(path.join(ROOT, f), "utf8"), /--policy-config policy\.json/, f);
    });
  });

  describe("arguments first, user paths from INIT_CWD", () => {
    it("--help and usage errors never load the program (child process)", () => {
      const probe = path.join(__dirname, "fixtures", "loaded-modules.cjs");
      for (const argv of [["--help"], ["--bogus"]]) {
        const p = spawnSync(process.execPath, ["--import", "tsx", "--require", probe, RENDER_CLI, ...argv], {
          cwd: ROOT,
          encoding: "utf8",
        });
        assert.equal(p.status, argv[0] === "--help" ? 0 : 2, p.stderr);
        const loaded = JSON.parse(/loaded-modules: (.*)/.exec(p.stderr)![1]) as string[];
        assert.ok(
          loaded.some((m) => m.endsWith(path.join("tools", "render", "cli", "cli.ts"))),
          "the probe sees the CLI",
        );
        assert.deepEqual(
          loaded.filter((m) => /program[\\/]program|@pulumi[\\/]pulumi[\\/]index|policy[\\/]run/.test(m)),
          [],
        );
      }
    });
    for (const script of ["render.ts", "gencode.ts"]) {
      it(`bench/${script} --help prints usage and runs nothing`, () => {
        const p = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", script), "--help"], {
          cwd: ROOT,
          encoding: "utf8",
        });
        assert.equal(p.status, 0, p.stderr);
        assert.match(p.stdout, /^usage: npm run bench/);
        assert.doesNotMatch(p.stdout, /module load|time x|KiB/, "it ran instead of printing usage");
      });
    }
    it("relative --out, --file and --policy-config resolve against INIT_CWD (where npm was run)", () => {
      fs.copyFileSync(STACK_1, path.join(tmp, "Pulumi.mine.yaml"));
      fs.writeFileSync(path.join(tmp, "pack.json"), JSON.stringify({ all: "advisory" }));
      const p = spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          RENDER_CLI,
          "--file",
          "Pulumi.mine.yaml",
          "--out",
          "rendered",
          "--policy-config",
          "pack.json",
        ],
        {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env, INIT_CWD: tmp },
        },
      );
      assert.equal(p.status, ExitCode.Ok, p.stderr);
      assert.ok(fs.existsSync(path.join(tmp, "rendered", "mine", "plan.json")));
      assert.match(p.stdout, /rendered mine -> rendered[\\/]mine /);
    });
  });
});
