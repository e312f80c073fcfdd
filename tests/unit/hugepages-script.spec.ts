/**
 * The GPU nodes' hugepages script (components/cluster/user-data.ts `hugepagesScript`) run by bash, with the node's
 * paths moved into a temporary directory and `sysctl` replaced by a stand-in kernel that reserves at most a given
 * number of pages: a node that gets its pages writes no drop-in; a node that gets fewer writes the NodeConfig
 * drop-in whose YAML, once the shell filled in the counts, is exactly `hugepagesDropIn(got, asked)`, and fails.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import YAML from "yaml";
import {
  HUGEPAGES_DROP_IN,
  HUGEPAGES_SYSCTL_FILE,
  HUGEPAGES_TAINT,
  hugepagesDropIn,
  hugepagesScript,
  NODEADM_DROP_IN_DIR,
} from "../../components/cluster/user-data";

const PROC = "/proc/sys/vm/nr_hugepages";

/** Runs the script on a node whose kernel holds `current` pages and reserves at most `kernelMax`. */
function runOn(pages: number, current: number, kernelMax: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "hugepages-"));
  const moved = (p: string) => path.join(root, p);
  fs.mkdirSync(path.dirname(moved(PROC)), { recursive: true });
  fs.mkdirSync(path.dirname(moved(HUGEPAGES_SYSCTL_FILE)), { recursive: true });
  fs.writeFileSync(moved(PROC), `${current}\n`);
  const bin = moved("bin");
  fs.mkdirSync(bin);
  // The stand-in kernel: `sysctl -q -w vm.nr_hugepages=N` reserves min(N, kernelMax).
  fs.writeFileSync(
    path.join(bin, "sysctl"),
    `#!/bin/bash\nn="\${3#vm.nr_hugepages=}"\n[ "$n" -gt ${kernelMax} ] && n=${kernelMax}\necho "$n" > ${moved(PROC)}\n`,
    { mode: 0o755 },
  );
  let script = hugepagesScript(pages);
  for (const p of [PROC, HUGEPAGES_SYSCTL_FILE, NODEADM_DROP_IN_DIR]) {
    assert.ok(script.includes(p), `the script names ${p}`);
    script = script.split(p).join(moved(p));
  }
  const r = spawnSync("bash", ["-c", script], {
    encoding: "utf8",
    env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` },
  });
  const read = (p: string) => (fs.existsSync(moved(p)) ? fs.readFileSync(moved(p), "utf8") : undefined);
  const out = {
    code: r.status,
    stderr: r.stderr,
    nr: Number(read(PROC)),
    sysctlFile: read(HUGEPAGES_SYSCTL_FILE),
    dropIn: read(HUGEPAGES_DROP_IN),
  };
  fs.rmSync(root, { recursive: true, force: true });
  return out;
}

describe("cluster: the hugepages script under bash (a stand-in kernel)", function () {
  before(function () {
    if (spawnSync("bash", ["--version"]).status !== 0) {
      console.log("    skipped: bash is not installed here");
      this.skip();
    }
  });

  it("a node that reserves every page keeps the count for later boots and writes no drop-in", () => {
    const r = runOn(5128, 0, 100000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.nr, 5128);
    assert.equal(r.sysctlFile, "vm.nr_hugepages = 5128\n");
    assert.equal(r.dropIn, undefined);
  });

  it("a node that already holds more pages keeps them (the script only raises the count)", () => {
    const r = runOn(5128, 8192, 100000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.nr, 8192);
    assert.equal(r.sysctlFile, undefined);
    assert.equal(r.dropIn, undefined);
  });

  it("a node that reserves fewer writes the drop-in the shell filled with both counts, says so and fails", () => {
    const r = runOn(5128, 0, 1000);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`reserved only 1000 of 5128 .*${HUGEPAGES_TAINT.key}=reserved-1000-of-5128`));
    assert.ok(r.dropIn, "the drop-in was written");
    assert.deepEqual(YAML.parse(r.dropIn), hugepagesDropIn(1000, 5128));
  });
});
