/**
 * Extracts why Dynamo's frontend image can run `measure`'s benchmark Job with nothing built: its build installs the
 * repository's benchmarks package (which pins aiperf) into the venv on its PATH, it keeps a shell, and Dynamo's own
 * in-cluster benchmark Job runs `aiperf profile` on it. Read from a checkout of ai-dynamo/dynamo:
 * container/templates/frontend.Dockerfile, benchmarks/pyproject.toml, benchmarks/incluster/benchmark_job.yaml and the
 * release-artifacts page (the published repository name).
 * Usage: npx tsx tests/contracts/extract/dynamo-frontend-aiperf.ts <dynamo checkout> --ref main
 * Later pins, read in pull requests and a stored copy, are written in `LATER` below with their sources.
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

const DOCKERFILE = "container/templates/frontend.Dockerfile";
const PYPROJECT = "benchmarks/pyproject.toml";
const JOB = "benchmarks/incluster/benchmark_job.yaml";
const ARTIFACTS = "docs/fern/pages/reference/general/release-artifacts.mdx";

const args = checkoutArgs(process.argv.slice(2), "npx tsx tests/contracts/extract/dynamo-frontend-aiperf.ts");
const find = matcher("dynamo-frontend-aiperf");
const docker = readText(args.root, DOCKERFILE);
const installs = find(/cd \/workspace\/benchmarks &&[\s\S]*?uv pip install \./, docker, "the benchmarks install")[0];
const venv = find(/ENV PATH="(\/opt\/dynamo\/venv\/bin):\$PATH"/, docker, "the venv on PATH")[1]!;
const entrypoint = find(/ENTRYPOINT \["([^"]+)"\]/, docker, "the entrypoint")[1]!;
const shell = /apt-get install/.test(docker);
const pin = find(/"aiperf==([\d.]+)"/, readText(args.root, PYPROJECT), "the aiperf pin")[1]!;
const job = readText(args.root, JOB);
const jobImage = find(/image: (nvcr\.io\/nvidia\/ai-dynamo\/[\w-]+):/, job, "the benchmark Job's image")[1]!;
const jobUser = Number(find(/runAsUser: (\d+)/, job, "the Job's user")[1]);
const published = find(
  /\| container \| dynamo-frontend \|[^\n]*`(nvcr\.io\/nvidia\/ai-dynamo\/dynamo-frontend):/,
  readText(args.root, ARTIFACTS),
  "the published frontend image",
)[1]!;

/** The pin after the extracted commit, read where the checkout could not reach. */
const LATER = [
  {
    aiperf: "0.12.0",
    source:
      "ai-dynamo/dynamo#14492 (main, 2026-09-08: 'Upgrade Dynamo's AIPerf install pins from 0.10.0 to stable 0.12.0', " +
      "container requirements and the benchmark package) and #14656 (its cherry-pick to release/1.5.0, 2026-09-10)",
  },
  { aiperf: "0.13.0", source: "ai-dynamo/dynamo@00700fced4b6553aed9a734585b239e5099ddc7a benchmarks/pyproject.toml" },
];

printFacts(
  {
    repository: "ai-dynamo/dynamo (fork wxsms/dynamo, main history)",
    ref: args.ref,
    commit: args.commit,
    paths: [DOCKERFILE, PYPROJECT, JOB, ARTIFACTS],
    extracted: today(),
    extractor: `tests/contracts/extract/dynamo-frontend-aiperf.ts <dynamo checkout> --ref ${args.ref}`,
    notes: withNotes(
      "Extracted at main of 2026-08-21 (the newest main this fetch reached). The v1.6.2 tag (28f9765) could not " +
        "be read: ai-dynamo/dynamo's snapshot is over the fetch limit and the file index holds no copy at that " +
        "commit. What the release ships is bounded by `later`: 0.12.0 from 2026-09-08 on main and release/1.5.0, " +
        "0.13.0 in a later main copy. The runtime images carry no benchmark tooling (#11368, the Job's comment).",
      args,
    ),
  },
  {
    image: published,
    installsBenchmarksPackage: installs !== "",
    aiperf: pin,
    aiperfOnPath: venv,
    entrypoint,
    hasShell: shell,
    benchmarkJob: { image: jobImage, runAsUser: jobUser, runsOn: "the frontend image" },
    later: LATER,
  },
);
