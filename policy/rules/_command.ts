/**
 * Reading a worker's command line: shell words (also inside `bash -c` scripts), flag values, the
 * engine it runs, and vLLM's `--kv-transfer-config` JSON (the only NIXL backend selector vLLM
 * reads: F3).
 */
import type { PlanContainer, PlanDgd, PlanService } from "./_dgd";

/** The main container of a service (`extraPodSpec.mainContainer`), or `{}`. */
export function mainContainer(svc: PlanService | undefined): PlanContainer {
  return svc?.extraPodSpec?.mainContainer ?? {};
}

/** Splits a shell string into words (single/double quotes and backslashes, no expansion). */
export function shellWords(s: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      cur += s.slice(i + 1, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === "\\" && j + 1 < s.length) j++;
        cur += s[j];
      }
      i = j;
      inWord = true;
    } else if (c === "\\" && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c) || c === ";" || c === "&" || c === "|") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/**
 * The words of a service's command line: `mainContainer.command` + `args`, with any word that is
 * itself a shell script (`bash -c "... python3 -m dynamo.vllm ..."`) split into its words.
 */
export function commandWords(svc: PlanService | undefined): string[] {
  const c = mainContainer(svc);
  const raw = [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])].map(String);
  return raw.flatMap((w) => (/\s/.test(w) && w.includes("--") ? shellWords(w) : [w]));
}

/** The value of `--flag v` / `--flag=v` in `words` (the last one wins), or undefined. */
export function flagValue(words: readonly string[], flag: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === flag && i + 1 < words.length) found = words[i + 1];
    else if (words[i].startsWith(`${flag}=`)) found = words[i].slice(flag.length + 1);
  }
  return found;
}

/**
 * The engine flags a worker's model fit is computed from, each with its aliases: vLLM's name, then
 * TensorRT-LLM's (`components/inference/fit.ts` `workerFit` takes these three numbers).
 */
export const FIT_FLAGS = {
  tensorParallel: ["--tensor-parallel-size"],
  maxModelLen: ["--max-model-len", "--max-seq-len"],
  gpuMemoryUtilization: ["--gpu-memory-utilization", "--free-gpu-memory-fraction"],
} as const;

/** `FIT_FLAGS` for a message: `--tensor-parallel-size, --max-model-len (--max-seq-len) and ...`. */
export const FIT_FLAGS_TEXT = (() => {
  const each = Object.values(FIT_FLAGS).map(([f, ...alt]) => (alt.length ? `${f} (${alt.join(", ")})` : f));
  return `${each.slice(0, -1).join(", ")} and ${each[each.length - 1]}`;
})();

/** A worker's fit flags (`FIT_FLAGS`), read from its command words. */
export interface FitFlags {
  readonly tensorParallel: number;
  readonly maxModelLen: number;
  readonly gpuMemoryUtilization: number;
}

/**
 * The fit flags of a command line, the first alias set of each, as numbers; undefined unless all
 * three are positive. The render's model plan and the model-fit policy both read flags this way.
 */
export function fitFlags(words: readonly string[]): FitFlags | undefined {
  const num = (names: readonly string[]) => {
    for (const f of names) {
      const v = flagValue(words, f);
      if (v !== undefined) return Number(v);
    }
    return NaN;
  };
  const tensorParallel = num(FIT_FLAGS.tensorParallel);
  const maxModelLen = num(FIT_FLAGS.maxModelLen);
  const gpuMemoryUtilization = num(FIT_FLAGS.gpuMemoryUtilization);
  return tensorParallel > 0 && maxModelLen > 0 && gpuMemoryUtilization > 0
    ? { tensorParallel, maxModelLen, gpuMemoryUtilization }
    : undefined;
}

/** Inference engine of a worker: the DGD's `backendFramework`, else the `dynamo.<engine>` module it runs. */
export function engineOf(props: PlanDgd | undefined, svc: PlanService | undefined): string | undefined {
  const words = commandWords(svc).join(" ");
  const m = /\bdynamo\.(vllm|trtllm|sglang)\b/.exec(words);
  if (m) return m[1];
  const bf = props?.spec?.backendFramework;
  return typeof bf === "string" ? bf : undefined;
}

/** vLLM's `--kv-transfer-config` of a worker: absent, unparseable, or the parsed JSON. */
export type KvTransferConfig =
  { kind: "absent" } | { kind: "invalid"; raw: string; error: string } | { kind: "ok"; raw: string; json: unknown };

/** Parses a vLLM worker's `--kv-transfer-config` JSON. */
export function kvTransferConfig(svc: PlanService | undefined): KvTransferConfig {
  const raw = flagValue(commandWords(svc), "--kv-transfer-config");
  if (raw === undefined) return { kind: "absent" };
  try {
    return { kind: "ok", raw, json: JSON.parse(raw) as unknown };
  } catch (e) {
    return { kind: "invalid", raw, error: (e as Error).message };
  }
}
