/**
 * `inference.runAsUser` accepts exactly the UIDs a container of this graph can run as: the API server's range
 * (apimachinery `IsValidUserID`: 0..2^31-1) less 0, which the kubelet refuses beside `runAsNonRoot: true`, and every
 * container of the graph sets `runAsNonRoot: true` (facts/kubernetes-user-id.json).
 */
import { strict as assert } from "assert";
import { INFERENCE_KEYS, INFERENCE_LIMITS } from "../../components/inference/args";
import { loadFacts } from "./facts";

interface UserIdFacts {
  readonly apiServer: { readonly minUserId: number; readonly maxUserId: number };
  readonly kubelet: { readonly runAsNonRootRefusesUid0: boolean };
}

describe("contract: the UID range of inference.runAsUser", () => {
  const { facts } = loadFacts<UserIdFacts>("kubernetes-user-id");

  it("the upper bound is the API server's largest UID", () =>
    assert.equal(INFERENCE_LIMITS.runAsUser.max, facts.apiServer.maxUserId));

  it("the lower bound is the API server's smallest UID, raised past 0 because the kubelet refuses root with runAsNonRoot", () => {
    assert.equal(facts.apiServer.minUserId, 0);
    assert.ok(facts.kubelet.runAsNonRootRefusesUid0);
    assert.equal(INFERENCE_LIMITS.runAsUser.min, 1);
  });

  it("the key table checks the value against that range", () =>
    assert.deepEqual(INFERENCE_KEYS.runAsUser, { kind: "integer", range: INFERENCE_LIMITS.runAsUser }));
});
