/**
 * Extracts the published KV-over-TCP/UCX figures of Dynamo's EFA guide (serving/facts/dynamo-ucx-kv.json):
 * the "~98s TTFT vs ~1s with EFA on Llama-3.1-8B at ISL 8000" case and the "~1-3 GB/s" UCX rate across nodes.
 * Usage: npx tsx tests/contracts/extract/dynamo-ucx-kv.ts <the guide as markdown> > serving/facts/dynamo-ucx-kv.json
 */
import { readFileSync } from "node:fs";
import { matcher, printFacts, today } from "./_checkout";

const must = matcher("dynamo-ucx-kv");

export function extract(md: string) {
  const ttft = must(/~(\d+)s TTFT vs ~(\d+)s with EFA on (Llama-[\d.]+-\d+B) at ISL (\d+)/, md, "TCP TTFT case");
  const ucx = must(/~(\d+)[-–](\d+) GB\/s/, md, "UCX rate");
  return {
    tcpTtfCase: {
      model: `meta-llama/${ttft[3]}-Instruct`,
      isl: Number(ttft[4]),
      ttftMsTcp: Number(ttft[1]) * 1000,
      ttftMsEfa: Number(ttft[2]) * 1000,
    },
    ucxAcrossNodesGBs: { low: Number(ucx[1]), high: Number(ucx[2]) },
  };
}

if (require.main === module) {
  printFacts(
    {
      repository:
        "https://docs.nvidia.com/dynamo/kubernetes-deployment/cloud-provider-guides/aws/efa-rdma-over-aws-fabric",
      ref: "Dynamo docs, EFA (RDMA over AWS Fabric) on EKS",
      commit: "published",
      paths: ["efa-rdma-over-aws-fabric.md: introduction; Step 4"],
      extracted: today(),
      extractor: "tests/contracts/extract/dynamo-ucx-kv.ts",
    },
    extract(readFileSync(process.argv[2]!, "utf8")),
  );
}
