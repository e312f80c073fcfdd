/**
 * Writing a render's directory without ever leaving a half-written one: files go to
 * a temporary directory beside the target, which is swapped in with two renames at the end. A lock
 * file (hard-linked into place from a draft, so it always holds pid and host) makes a second concurrent render into the same directory fail
 * fast instead of mixing two configs. A failed or killed render leaves the previous output as it was;
 * the next render removes what a killed one left (its pid is gone).
 *
 * Errors are `OutputError`s carrying the exit code: `CantCreate` (a file where a directory belongs,
 * read-only, permission), `IoError` (disk full, EIO), or `InvalidConfig` for a held lock.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { RenderedFile } from "./manifests";
import { ExitCode } from "../../_shared/exit-codes";

/** The output could not be written; `code` is the process exit code. */
export class OutputError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = "OutputError";
  }
}

const CANT_CREATE = [
  "EACCES",
  "EPERM",
  "EROFS",
  "ENOTDIR",
  "EEXIST",
  "ENOENT",
  "EISDIR",
  "ELOOP",
  "ENAMETOOLONG",
  "EINVAL",
];
const WHY: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOTDIR: "a path component is a file, not a directory",
  EEXIST: "a file is in the way",
  ENOENT: "the path does not exist and cannot be created there",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EIO: "I/O error",
};

/** An fs error as an `OutputError` with a plain message and the sysexits code. */
export function outputError(e: unknown, what: string): OutputError {
  if (e instanceof OutputError) return e;
  const code = (e as NodeJS.ErrnoException).code ?? "";
  const why = WHY[code] ?? (code || (e as Error).message);
  return new OutputError(
    `${what}: ${why}${code && WHY[code] ? ` (${code})` : ""}`,
    CANT_CREATE.includes(code) ? ExitCode.CantCreate : ExitCode.IoError,
  );
}

/**
 * Creates `dir` one component at a time (never `mkdir -p`, which spins on some pseudo file systems),
 * checking that every existing component is a directory.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw outputError(e, `cannot use ${at}`);
    }
    if (st) {
      if (!st.isDirectory())
        throw new OutputError(`cannot create ${dir}: ${at} exists and is not a directory`, ExitCode.CantCreate);
      break;
    }
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      throw outputError(e, `cannot create ${d}`);
    }
  }
}

/** Whether process `pid` exists on this host. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/** A held lock on one render directory; `release` removes it. */
export interface Lock {
  readonly file: string;
  release(): void;
}

/**
 * Takes `<parent>/.<name>.lock` with `O_EXCL`, holding pid and host. A lock left by a dead process on
 * this host is taken over; one held by a live process (or on another host, where liveness cannot be
 * checked, or unreadable) is an `OutputError` (exit 2) naming the holder.
 */
export function lockDir(target: string): Lock {
  const file = path.join(path.dirname(target), `.${path.basename(target)}.lock`);
  const me: Holder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryLock(target, file, me)) return { file, release: () => fs.rmSync(file, { force: true }) };
    let holder: Partial<Holder> = {};
    try {
      holder = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Holder>;
    } catch {
      // unreadable (a foreign file): treated as held by an unknown process
    }
    if (holder.host !== me.host || typeof holder.pid !== "number" || alive(holder.pid)) {
      const who = holder.pid
        ? `pid ${holder.pid} on ${holder.host ?? "?"} since ${holder.since ?? "?"}`
        : "an unknown process";
      throw new OutputError(
        `another render is writing ${target} (${who}); wait for it, or delete ${file} if that process is gone`,
        ExitCode.InvalidConfig,
      );
    }
    fs.rmSync(file, { force: true });
  }
  throw new OutputError(`cannot take the lock ${file}: another render keeps taking it`, ExitCode.InvalidConfig);
}

/**
 * Creates `file` holding `me`, or returns false when it exists. The holder is written to a draft first and
 * hard-linked into place (`link` fails on an existing name, like `O_EXCL`), so the lock never exists without its
 * holder: a render killed between `open` and `write` of the lock itself would leave an empty lock that no later
 * render could tell from a live one. A draft left by a killed render is swept with the other leftovers.
 */
function tryLock(target: string, file: string, me: Holder): boolean {
  const draft = sibling(target, "lock");
  try {
    fs.writeFileSync(draft, `${JSON.stringify(me)}\n`, { flag: "wx" });
    fs.linkSync(draft, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw outputError(e, `cannot create the lock ${file}`);
    return false;
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/** A sibling of `target` that no other render uses: `.<name>.<tag>-<pid>-<random>`. */
function sibling(target: string, tag: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${tag}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
  );
}

/** Writes `files` into a fresh directory `dir` (which must not exist). */
function writeAll(dir: string, files: readonly RenderedFile[]): void {
  fs.mkdirSync(dir);
  for (const f of files) {
    const target = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, f.content);
  }
}

/**
 * Replaces `target` with a directory holding exactly `files` plus whatever entries of the old one the
 * render does not own (`owned` and the top-level names of `files`: a user's notes are kept). Call with
 * the lock held. On error the previous `target` is untouched (or restored) and the temporary directory
 * removed.
 */
export function writeRenderAtomic(target: string, files: readonly RenderedFile[], owned: readonly string[]): void {
  const old = writeAndSwap(target, sibling(target, "tmp"), files, owned);
  if (old) fs.rmSync(old, { recursive: true, force: true });
}

function writeAndSwap(
  target: string,
  tmp: string,
  files: readonly RenderedFile[],
  owned: readonly string[],
): string | undefined {
  const mine = new Set([...owned, ...files.map((f) => f.path.split("/")[0])]);
  try {
    writeAll(tmp, files);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw outputError(e, `cannot write the render (nothing changed in ${target})`);
  }
  let old: string | undefined;
  try {
    if (fs.existsSync(target)) {
      if (!fs.lstatSync(target).isDirectory())
        throw new OutputError(`cannot replace ${target}: it exists and is not a directory`, ExitCode.CantCreate);
      for (const entry of fs.readdirSync(target).filter((n) => !mine.has(n)))
        fs.cpSync(path.join(target, entry), path.join(tmp, entry), { recursive: true, preserveTimestamps: true });
      old = sibling(target, "old");
      fs.renameSync(target, old);
    }
    fs.renameSync(tmp, target);
    return old;
  } catch (e) {
    if (old && !fs.existsSync(target)) fs.renameSync(old, target);
    fs.rmSync(tmp, { recursive: true, force: true });
    throw outputError(e, `cannot replace ${target} (the previous output is unchanged)`);
  }
}

/** Removes temporary siblings a killed render left beside `target` (only ones whose pid is gone). */
export function sweepLeftovers(target: string): void {
  const prefix = `.${path.basename(target)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(target));
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^(tmp|old|lock)-(\d+)-[a-z0-9]+$/.exec(n.startsWith(prefix) ? n.slice(prefix.length) : "");
    if (!m || alive(Number(m[2]))) continue;
    const p = path.join(path.dirname(target), n);
    // An `old` directory with no target means a render died between its two renames: put it back.
    if (m[1] === "old" && !fs.existsSync(target)) fs.renameSync(p, target);
    else fs.rmSync(p, { recursive: true, force: true });
  }
}
