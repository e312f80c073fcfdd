/**
 * Aliases for resources an earlier version of this program created under another parent (docs/CONTRIBUTING.md
 * rule 9: names are identity), so `pulumi up` on an existing stack moves them instead of replacing them.
 */
import * as pulumi from "@pulumi/pulumi";
import { DISAGG_INFERENCE_TYPE } from "../components/inference/inference";

const HELM_RELEASE = "kubernetes:helm.sh/v3:Release";

/**
 * The `dynamo-platform` release used to be `<graph>-dynamo-platform`, a child of the DisaggInference `<graph>`. A
 * transformation on the `DynamoPlatform` gives its release that old URN as an alias: without it an existing stack
 * would install the new release first (Helm refuses: the release name is taken) and then uninstall the operator.
 */
export function platformMovedFromGraph(graphName: string): pulumi.ResourceTransformation {
  return (a) =>
    a.type !== HELM_RELEASE
      ? undefined
      : {
          props: a.props,
          opts: pulumi.mergeOptions(a.opts, {
            aliases: [
              { name: `${graphName}-dynamo-platform`, parent: pulumi.createUrn(graphName, DISAGG_INFERENCE_TYPE) },
            ],
          }),
        };
}
