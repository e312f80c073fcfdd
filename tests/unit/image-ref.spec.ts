/** Container image reference helpers: parsing, digest pinning, tag/digest rewriting and the registry/ECR parts. */
import * as assert from "assert";
import {
  ecrRegistryOf,
  ecrRepositoryName,
  isDigestPinned,
  parseImageRef,
  registryOf,
  removeTagFromRef,
  withDigest,
  withTag,
} from "../../components/image/ref";

const D = `sha256:${"ab".repeat(32)}`;
const ECR = "123456789012.dkr.ecr.us-east-2.amazonaws.com/dynamo";

describe("image ref helpers", () => {
  const parses: [string, ReturnType<typeof parseImageRef>][] = [
    ["ubuntu", { repository: "ubuntu" }],
    ["ubuntu:24.04", { repository: "ubuntu", tag: "24.04" }],
    ["nvcr.io/nvidia/pytorch:25.12-py3", { registry: "nvcr.io", repository: "nvidia/pytorch", tag: "25.12-py3" }],
    ["localhost:5000/x:1", { registry: "localhost:5000", repository: "x", tag: "1" }],
    ["localhost/x", { registry: "localhost", repository: "x" }],
    [`${ECR}@${D}`, { registry: "123456789012.dkr.ecr.us-east-2.amazonaws.com", repository: "dynamo", digest: D }],
    [
      `${ECR}:final-cu129-0123@${D}`,
      {
        registry: "123456789012.dkr.ecr.us-east-2.amazonaws.com",
        repository: "dynamo",
        tag: "final-cu129-0123",
        digest: D,
      },
    ],
    ["Upper/Case:1", undefined],
    ["repo@sha256:short", undefined],
    ["has space:1", undefined],
    ["", undefined],
    ["repo:bad!tag", undefined],
    ["host:5000/repo", { registry: "host:5000", repository: "repo" }],
    // distribution/reference's grammar (tests/contracts/facts/image-reference.json): the registry is a host[:port],
    // path components take one ".", one or two "_" or any run of "-" between alphanumerics, names <= 255 chars.
    [`../x@${D}`, undefined],
    [`-host.io/x@${D}`, undefined],
    [`$(id).io/x@${D}`, undefined],
    ["a..b/x", undefined],
    ["x/a._b", undefined],
    ["x/a___b", undefined],
    ["x/a__b--c.d", { repository: "x/a__b--c.d" }],
    ["[::1]:5000/x", { registry: "[::1]:5000", repository: "x" }],
    [`r.io/${"a".repeat(251)}`, undefined],
    [`r.io/${"a".repeat(250)}`, { registry: "r.io", repository: "a".repeat(250) }],
    [`r.io/${"a".repeat(250)}:t`, { registry: "r.io", repository: "a".repeat(250), tag: "t" }],
  ];
  for (const [ref, want] of parses)
    it(`parses ${JSON.stringify(ref)}`, () => assert.deepStrictEqual(parseImageRef(ref), want));

  const pinned: [string, boolean][] = [
    [`${ECR}@${D}`, true],
    [`${ECR}:t@${D}`, true],
    [`${ECR}:t`, false],
    [ECR, false],
    [`${ECR}@sha256:abc`, false],
  ];
  for (const [ref, want] of pinned)
    it(`isDigestPinned(${ref.slice(-20)}) = ${want}`, () => assert.strictEqual(isDigestPinned(ref), want));

  const untag: [string, string][] = [
    [`${ECR}:t@${D}`, `${ECR}@${D}`],
    [`${ECR}:t`, ECR],
    ["localhost:5000/x:1", "localhost:5000/x"],
    ["localhost:5000/x", "localhost:5000/x"],
    ["not a ref", "not a ref"],
  ];
  for (const [ref, want] of untag)
    it(`removeTagFromRef(${ref.slice(-24)})`, () => assert.strictEqual(removeTagFromRef(ref), want));

  it("withDigest / withTag build refs and reject junk", () => {
    assert.strictEqual(withDigest(ECR, D), `${ECR}@${D}`);
    assert.strictEqual(withDigest(`${ECR}:old`, D), `${ECR}@${D}`);
    assert.strictEqual(withTag(`${ECR}:old`, "new"), `${ECR}:new`);
    assert.throws(() => withDigest(ECR, "sha256:xyz"), /not an image digest/);
    assert.throws(() => withTag(ECR, "bad tag"), /not an image tag/);
  });

  const ecr: [string, ReturnType<typeof ecrRegistryOf>][] = [
    [ECR, { registryId: "123456789012", region: "us-east-2", address: "123456789012.dkr.ecr.us-east-2.amazonaws.com" }],
    [
      "123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com/x",
      {
        registryId: "123456789012",
        region: "us-gov-west-1",
        address: "123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com",
      },
    ],
    ["ghcr.io/org/x", undefined],
    ["public.ecr.aws/x/y", undefined],
  ];
  for (const [url, want] of ecr) it(`ecrRegistryOf(${url})`, () => assert.deepStrictEqual(ecrRegistryOf(url), want));

  it("registryOf and ecrRepositoryName", () => {
    assert.strictEqual(registryOf(ECR), "123456789012.dkr.ecr.us-east-2.amazonaws.com");
    assert.strictEqual(registryOf("ubuntu:24.04"), "docker.io");
    for (const [n, want] of [
      ["Dynamo_Image", "dynamo_image"],
      ["--x y!", "x-y"],
      ["!!!", "dynamo-efa"],
      ["team/img-", "team/img"],
    ] as const) {
      assert.strictEqual(ecrRepositoryName(n), want);
    }
  });
});
