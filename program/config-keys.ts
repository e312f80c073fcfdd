/**
 * The stack config as read, before checking: the full keys a stack sets (typos, dotted keys and
 * look-alike namespaces are problems) and the raw values the program and the offline tools both
 * build from a getter of full keys. Pure.
 */
import { Problem } from "../components/_shared/problems";
import { closest, didYouMean } from "../components/_shared/suggest";
import { brief } from "./schema";
import { CONFIG_NAMESPACE, FOREIGN_KEYS, STACK_KEYS } from "./config-fields";

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
const sortedLetters = (s: string) => [...s.toLowerCase()].sort().join("");
/** `a` is a near miss of `b`: case, separators, one edit per 4 characters, or swapped letters. */
function lookAlike(a: string, b: string): boolean {
  return (
    a !== b &&
    (squash(a) === squash(b) || closest(a, [b]).length > 0 || (a.length > 3 && sortedLetters(a) === sortedLetters(b)))
  );
}

/** Problems with the full config keys (`ns:key`) of a stack: typos, dotted keys, look-alike namespaces. */
export function configKeyProblems(keys: readonly string[]): Problem[] {
  const known = Object.keys(STACK_KEYS);
  const out: Problem[] = [];
  for (const full of keys) {
    const colon = full.indexOf(":");
    const [ns, key] = colon < 0 ? [CONFIG_NAMESPACE, full] : [full.slice(0, colon), full.slice(colon + 1)];
    const at = brief(full).slice(1, -1);
    if (ns === CONFIG_NAMESPACE) {
      if (key in STACK_KEYS) continue;
      const [head, ...rest] = key.split(".");
      const reason =
        rest.length > 0 && head in STACK_KEYS
          ? `a dotted key is one literal key to Pulumi, not a path; nest it: ${CONFIG_NAMESPACE}:${head}: { ${rest.join(".")}: ... } (or --set ${key}=...)`
          : `unknown key${didYouMean(key, known) || `; the ${CONFIG_NAMESPACE} keys are ${known.join(", ")}`}`;
      out.push({ propertyPath: at, reason });
    } else if (lookAlike(ns, CONFIG_NAMESPACE)) {
      out.push({
        propertyPath: at,
        reason: `namespace ${JSON.stringify(ns)} is not the project's; did you mean "${CONFIG_NAMESPACE}:${key}"?`,
      });
    } else if (!FOREIGN_KEYS.includes(full)) {
      const near = FOREIGN_KEYS.find((f) => f.startsWith(`${ns}:`) && lookAlike(key, f.slice(ns.length + 1)));
      if (near) out.push({ propertyPath: at, reason: `not a key this program reads; did you mean "${near}"?` });
    }
  }
  return out;
}

/**
 * The raw config as the program reads it, from a getter of full keys (`aws:region`,
 * `dynamo-efa:inference`) that returns the runtime's string values: object keys are JSON-parsed.
 * `readStackConfig` (under Pulumi) and the offline tools (from a stack file) both build it here.
 */
export function rawStackConfig(
  get: (fullKey: string) => string | undefined,
  keys: readonly string[],
  hfTokenSet: boolean,
  offline = false,
): RawStackConfig {
  const objectOrRaw = (key: string): unknown => {
    const text = get(`${CONFIG_NAMESPACE}:${key}`);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text; // a scalar where an object belongs: the schema check names the key and the type
    }
  };
  return {
    region: get("aws:region"),
    graphName: get(`${CONFIG_NAMESPACE}:graphName`),
    release: get(`${CONFIG_NAMESPACE}:release`),
    previousRelease: get(`${CONFIG_NAMESPACE}:previousRelease`),
    cluster: objectOrRaw("cluster"),
    image: objectOrRaw("image"),
    inference: objectOrRaw("inference"),
    observability: objectOrRaw("observability"),
    hfTokenSet,
    keys,
    ...(offline ? { offline } : {}),
  };
}

/** Raw values as read from config (objects already parsed from JSON). */
export interface RawStackConfig {
  readonly region?: unknown;
  readonly graphName?: unknown;
  /** `dynamo-efa:release`: the supported release (components/releases). */
  readonly release?: unknown;
  /** `dynamo-efa:previousRelease`: the release the stack runs now, when moving it to `release`. */
  readonly previousRelease?: unknown;
  readonly cluster?: unknown;
  readonly image?: unknown;
  readonly inference?: unknown;
  /** `dynamo-efa:observability`: false, or an object (absent = monitoring on). */
  readonly observability?: unknown;
  /** Whether `dynamo-efa:hfToken` is set (its value is never needed to validate). */
  readonly hfTokenSet: boolean;
  /** Every full config key of the stack (`ns:key`), to catch typos. @default - not checked */
  readonly keys?: readonly string[];
  /**
   * True when the config is checked for the offline render (under mocks), not for a real `pulumi preview`/`up`:
   * placeholders that reach nothing (documentation CIDRs) are accepted with a note instead of refused. @default false
   */
  readonly offline?: boolean;
}
