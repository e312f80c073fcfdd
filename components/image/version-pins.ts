/**
 * `versions` overrides against what they must agree with: the Dynamo commit's own engine pins (an override that
 * differs is an error naming both versions unless `acceptVersionSkew` names its key), and the download checksums
 * (a tool's version override needs the SHA-256 of that version's file, or the build would refuse the download).
 * Pure; no Pulumi import.
 */
import { Problem, joinPath, show } from "../_shared/problems";
import { closest } from "../_shared/suggest";
import { DYNAMO_COMMIT, dynamoPins, image } from "../versions";

/** Keys `acceptVersionSkew` may name: the pinned engines and `dynamo` itself. */
export const SKEW_KEYS: readonly string[] = [...dynamoPins.map((p) => p.key), "dynamo"];

/** Each downloaded tool's version key and the key of its pinned SHA-256. */
export const CHECKSUM_OF: Readonly<Record<string, string>> = {
  uv: "uvSha256",
  sccache: "sccacheSha256",
  etcd: "etcdSha256",
  rustup: "rustupInitSha256",
};

/** Dotted numeric release parts ("v0.17.1" -> [0, 17, 1]; pre-release suffixes end the comparison). */
function release(v: string): number[] {
  return (/^v?(\d+(?:\.\d+)*)/.exec(v)?.[1] ?? "").split(".").filter(Boolean).map(Number);
}

function compare(a: string, b: string): number {
  const x = release(a);
  const y = release(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether version `v` (a tag like "v0.17.1" or "1.3.0rc7") satisfies a `==X` or `<=X` spec. */
export function satisfies(v: string, spec: string): boolean {
  const m = /^(==|<=)(.+)$/.exec(spec);
  if (!m) throw new Error(`unsupported version spec ${spec}`);
  const bare = v.replace(/^v/, "");
  return m[1] === "==" ? bare === m[2] : compare(bare, m[2]) <= 0;
}

/** Overrides that leave what the Dynamo commit pins, unless acknowledged; a bad `acceptVersionSkew` entry. */
export function skewProblems(overrides: Readonly<Record<string, unknown>>, accepted: readonly unknown[]): Problem[] {
  const problems: Problem[] = [];
  accepted.forEach((k, i) => {
    if (typeof k !== "string" || !SKEW_KEYS.includes(k)) {
      const near = typeof k === "string" ? closest(k, [...SKEW_KEYS]) : [];
      problems.push({
        propertyPath: `acceptVersionSkew[${i}]`,
        reason: `${show(k)} is not a version key with a Dynamo pin; allowed: ${SKEW_KEYS.join(", ")}${near.length ? ` (did you mean ${near.map(show).join(" or ")}?)` : ""}`,
      });
    }
  });
  const ok = (key: string) => accepted.includes(key);
  const dynamo = overrides.dynamo;
  if (dynamo !== undefined && dynamo !== DYNAMO_COMMIT && !ok("dynamo")) {
    problems.push({
      propertyPath: "versions.dynamo",
      reason: `${show(dynamo)} is not the Dynamo commit ${DYNAMO_COMMIT} whose engine pins this package checks (vLLM, TensorRT-LLM, NIXL); the engines must match what that commit's pyproject.toml pins. Keep the default, or add "dynamo" to acceptVersionSkew once you have checked its pins`,
    });
  }
  for (const pin of dynamoPins) {
    const v = overrides[pin.key];
    // A value that is not a version at all ("latest", "") is checkVersions' problem, reported once there.
    if (typeof v !== "string" || release(v).length === 0 || satisfies(v, pin.spec) || ok(pin.key)) continue;
    problems.push({
      propertyPath: joinPath("versions", pin.key),
      reason: `${show(v)} does not satisfy ${pin.project}${pin.spec}, which Dynamo ${DYNAMO_COMMIT.slice(0, 9)} (the image's Dynamo runtime, versions.dynamo) pins in pyproject.toml; that commit was written for ${image[pin.key]}. Use ${show(image[pin.key])}, or add ${show(pin.key)} to acceptVersionSkew to build this pair anyway`,
    });
  }
  return problems;
}

/** A downloaded tool's version overridden without the checksum of that version's file. */
export function checksumProblems(overrides: Readonly<Record<string, unknown>>): Problem[] {
  return Object.entries(CHECKSUM_OF).flatMap(([key, sum]) =>
    typeof overrides[key] === "string" &&
    overrides[key] !== "" &&
    overrides[key] !== image[key as keyof typeof image] &&
    overrides[sum] === undefined
      ? [
          {
            propertyPath: joinPath("versions", sum),
            reason: `versions.${key} is ${show(overrides[key])}, so the pinned SHA-256 of ${image[key as keyof typeof image]}'s download no longer applies: set versions.${sum} to the SHA-256 the publisher lists for ${show(overrides[key])} (the build refuses an unverified download)`,
          },
        ]
      : [],
  );
}
