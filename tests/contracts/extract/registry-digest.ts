/**
 * Extracts how a registry lookup resolves a tag to a digest, from the data source behind the Docker provider's
 * `getRegistryImage` (kreuzwerker/terraform-provider-docker), which components/image/registry-digest.ts follows:
 * the manifest request, the Bearer-challenge token dance (service, the challenge's scope or a fallback, `token` or
 * `access_token`), HEAD before GET, and the digest from the `Docker-Content-Digest` header or the body's sha256.
 * Usage: npx tsx tests/contracts/extract/registry-digest.ts <terraform-provider-docker checkout> --ref <tag> [--commit <sha>]
 */
import { checkoutArgs, matcher, printFacts, readText, today } from "./_checkout";

export const PATH = "internal/provider/data_source_docker_registry_image.go";
const must = matcher("registry-digest");

/** The facts, read from a checkout. */
export function extract(root: string): Record<string, unknown> {
  const go = readText(root, PATH);
  return {
    manifestPath: must(/"\/v2\/"\+image\+"(\/manifests\/)"\+tag/, go, "manifest path")[1],
    firstMethod: must(/http\.NewRequest\("(HEAD|GET)", registryWithProtocol/, go, "first method")[1],
    bearerOn401: /case http\.StatusUnauthorized:[\s\S]*?HasPrefix\([^)]*"www-authenticate"\), "Bearer"\)/.test(go),
    tokenScope: /params\.Set\("scope", auth\["scope"\]\)[\s\S]*?fallbackScope/.test(go)
      ? "the challenge's, else a fallback"
      : "",
    tokenFields: [...go.matchAll(/token\.(Token|AccessToken) != ""/g)].map((m) =>
      m[1] === "Token" ? "token" : "access_token",
    ),
    getAfterHeadWithoutDigest: /req\.Method = "GET"/.test(go),
    digestHeader: must(/Header\.Get\("(Docker-Content-Digest)"\)/, go, "digest header")[1],
    bodySha256WithoutHeader: /sha256:%x", sha256\.Sum256\(body\)/.test(go),
  };
}

if (require.main === module) {
  const a = checkoutArgs(process.argv.slice(2), "registry-digest.ts");
  printFacts(
    {
      repository: "kreuzwerker/terraform-provider-docker",
      ref: a.ref,
      commit: a.commit,
      paths: [PATH],
      extracted: today(),
      extractor: "tests/contracts/extract/registry-digest.ts",
      notes: a.notes ?? "",
    },
    extract(a.root),
  );
}
