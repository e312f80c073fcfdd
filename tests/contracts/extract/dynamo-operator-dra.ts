/**
 * Extracts how Dynamo's operator builds a worker pod from a v1beta1 graph, for what a DRA claim needs: that the
 * component's `podTemplate.spec` (its `resourceClaims` included) is merged over the operator's base pod spec, that the
 * main container is merged by name (its `resources.claims` included), and that a scalar `nvidia.com/gpu` is written
 * only from Dynamo-form `resources.gpu` (the v1alpha1 field), so a v1beta1 worker with a claim gets no GPU count of
 * the operator's own. Files: `internal/dynamo/graph.go` (`GenerateBasePodSpec`, `applyDynDeploymentResources`).
 * Usage: npx tsx tests/contracts/extract/dynamo-operator-dra.ts <ai-dynamo/dynamo checkout> --ref main --commit <sha> > tests/contracts/facts/dynamo-operator-dra.json
 */
import { checkoutArgs, matcher, printFacts, readText, today, withNotes } from "./_checkout";

export const PATHS = { graph: "deploy/operator/internal/dynamo/graph.go" } as const;

const must = matcher("dynamo-operator-dra");

/** The facts, from the operator's pod builder. */
export function extract(read: (p: string) => string) {
  const g = read(PATHS.graph);
  const apply = must(/func applyDynDeploymentResources\([\s\S]*?\n\}/, g, "applyDynDeploymentResources")[0];
  return {
    podTemplateSpecMergedWithOverride:
      /podSpecOverride := component\.PodTemplate\.Spec\.DeepCopy\(\)[\s\S]{0,600}mergo\.Merge\(&podSpec, podSpecOverride, mergo\.WithOverride\)/.test(
        g,
      ),
    mainContainerMergedByName: /mergeContainerByName\(&container, main\)/.test(g),
    scalarGpuOnlyFromDynamoResources:
      /applyResourceQuantity\(corev1\.ResourceName\(commonconsts\.KubeResourceGPUNvidia\), resources\.GPU\)/.test(
        apply,
      ) && (g.match(/KubeResourceGPUNvidia/g) ?? []).length === 1,
  };
}

if (require.main === module) {
  const usage = "npx tsx tests/contracts/extract/dynamo-operator-dra.ts";
  const args = checkoutArgs(process.argv.slice(2), usage);
  printFacts(
    {
      repository: "ai-dynamo/dynamo",
      ref: args.ref,
      commit: args.commit,
      paths: Object.values(PATHS),
      extracted: today(),
      extractor: "tests/contracts/extract/dynamo-operator-dra.ts",
      notes: withNotes(
        "Read from the fork mirror wxsms/dynamo at ai-dynamo/dynamo main 2a6da14c8 (2026-08-21, chart 1.5.0 on main), the commit dgd-crd-v1beta1.json was read at: the v1.6.2 tag is on no reachable snapshot. The same file has DRA-aware code of its own only for the experimental GPU Memory Service (dra.ApplyClaim) and power admission (which rejects DRA-backed components only when power caps are set; this project sets none). Field: T-Systems ran Dynamo 1.4.0 graphs with DRA-allocated H200 GPUs (ai-dynamo/dynamo#13565; their defect was the planner's GPU count, #13465, fixed by #13871; this project runs no planner).",
        args,
      ),
    },
    extract((p) => readText(args.root, p)),
  );
}
