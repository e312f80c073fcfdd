// `npm run test:slow`: the suites that spawn real processes or toolchains (npm pack, python3, nvcc, gpg, bash and
// curl, the CLIs as children, Pulumi's own TypeScript loader, mocha itself), and those that render the whole program
// under the render's mocks (a few seconds a render, dozens of renders). They took most of `npm test`'s time
// while the component tests take seconds, so `npm test` (the README's command) runs every other spec
// (.mocharc.fast.cjs) and `.ci/run` runs both. Each entry says what it spawns. tests/unit/test-sets.spec.ts
// fails when a spec file belongs to neither set or to both.
const base = require("./.mocharc.json");

/** Spec file -> what it spawns. */
const SLOW = {
  "tests/package/packed.spec.ts": "npm pack and tsc over the packed tarball",
  "tests/unit/prefetch.spec.ts": "python3 prefetch.py against a fake Hugging Face server",
  "tests/unit/prefetch-integrity.spec.ts": "python3 prefetch.py against a fake Hugging Face server (and openssl)",
  "tests/unit/model-commit-serialized.spec.ts": "node over the serialized ModelCommit provider",
  "tests/unit/image-digest-serialized.spec.ts": "node over the serialized ImageDigest provider",
  "tests/unit/nvcc.spec.ts": "nvcc over every arch list",
  "tests/contracts/efa-installer-signing.spec.ts": "gpg and bash",
  "tests/unit/fetch-verified.spec.ts": "bash, curl and gpg",
  "tests/unit/hugepages-script.spec.ts": "bash running the GPU nodes' hugepages script",
  "tests/unit/image-smoke.spec.ts": "python3 and bash running the image's entry modules",
  "tests/contracts/image-environments.spec.ts": "gcc and python3",
  "tests/render/bundled-cli.spec.ts": "the bundled render command and node as children, beside an in-process render",
  "tests/render/robustness-cli.spec.ts": "the render CLI and the bench scripts as children",
  "tests/render/robustness-output.spec.ts": "the render CLI as a child, killed mid-write",
  "tests/render/fuzz.spec.ts":
    "the render CLI as a child over random configs, and 2,000 generated configs in-process, the real program rendering each accepted one",
  "tests/render/pulumi-loader.spec.ts": "index.ts under Pulumi's own ts-node, in a child",
  "tests/policy/pack.spec.ts": "the policy pack under Pulumi's policy runner, in a child",
  "tests/verify/cli-errors.spec.ts": "the verify CLI as a child",
  "tests/contracts/cluster-daemonsets.spec.ts": "p5en-cluster rendered under the render's mocks",
  "tests/verify/totals-reporter.spec.ts": "mocha as a child over fixture suites",
  "tests/unit/image-args-cli.spec.ts": "tools/image-args.ts under tsx, as a child",
  "tests/verify/cli-timeout.spec.ts": "no child: waits out a real 4 s --timeout budget (a clock, not a fake)",
  "tests/unit/cidr.spec.ts": "python3's ipaddress and inet_aton, the reference the CIDR parser is held to",
  "tests/unit/model-id.spec.ts": "python3 judging the same model ids and revisions as the TypeScript check",
  "tests/unit/prefetch-metadata.spec.ts": "python3 prefetch.py with METADATA_ONLY against a fake Hugging Face server",
  "tests/unit/first-token-check.spec.ts": "python3 running the first-token check against fake Frontends on loopback",
  "tests/render/first-token.spec.ts": "the whole program rendered under the render's mocks, five times",
  "tests/verify/gate-g.spec.ts": "sh running the worker probe script against a real process named like the engine",
  "tests/verify/gate-l.spec.ts": "sh running the locality probe script",
  "tests/unit/npm-test-output.spec.ts": "concurrently with npm test's options over node stand-ins for mocha and tsc",
  "tests/render/release-image-matrix.spec.ts": "no child: 21 renders of the real program, slow by count",
  "tests/contracts/eks-hugepages.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/contracts/helm-values.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/contracts/nodeadm-user-data.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/contracts/release-matrix.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/policy/known-issues.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/policy/rendered-hardening.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/policy/rendered.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/bad-configs.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/cli.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/image-builder.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/index-program.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/model-fit.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/model-load.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/observability.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/plan-summary.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/readme-journey.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/serving/render.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/serving/catalog-estimates.spec.ts": "no child: ~3700 serving estimates over the catalog, slow by count",
  "tests/render/stacks-model-cache.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/stacks.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/previous-state.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/model-stacks.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/topology.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/render/device-allocation.spec.ts": "the whole program rendered under the render's mocks (seconds a render)",
  "tests/docs/doc-facts.spec.ts": "both shipped stacks rendered under the render's mocks for the docs' numbers",
};

module.exports = {
  ...base,
  spec: Object.keys(SLOW),
  reporter: "./tests/helpers/totals-reporter.cjs",
};
