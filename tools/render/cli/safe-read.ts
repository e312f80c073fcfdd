/**
 * Reading a user's file without ever hanging or crashing: only regular
 * files (a FIFO or a device is refused after `fstat`, never read), at most `MAX_FILE_BYTES`, strict
 * UTF-8 with the line of the first bad byte, UTF-16 recognised and named. Shared by the stack file,
 * `--policy-config` and verify's kubeconfig. Errors are `UsageError`s (exit 2).
 */
import * as fs from "fs";

/** Bad command line or unreadable input file: exit code 2, message names the key or file. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** `s` cut to `n` characters with an ellipsis: messages never echo a huge value. */
export function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

/** Largest file read (stack files and kubeconfigs are a few KiB). */
export const MAX_FILE_BYTES = 1 << 20;

const KINDS: readonly [keyof fs.Stats, string][] = [
  ["isDirectory", "a directory"],
  ["isFIFO", "a named pipe (FIFO)"],
  ["isSocket", "a socket"],
  ["isCharacterDevice", "a character device"],
  ["isBlockDevice", "a block device"],
];

/** What kind of file `st` is, for a message. */
export function fileKind(st: fs.Stats): string {
  for (const [test, name] of KINDS) if ((st[test] as () => boolean).call(st)) return name;
  return "not a regular file";
}

/** Reads at most `MAX_FILE_BYTES` of a regular file; never blocks on a FIFO or a device. */
export function readRegularFile(file: string, what: string): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${what} ${file}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (code ?? String(e))}`,
    );
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`${what} ${file} is ${fileKind(st)}, not a regular file`);
    const buf = Buffer.alloc(MAX_FILE_BYTES + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n <= MAX_FILE_BYTES; n += got) got = fs.readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_FILE_BYTES)
      throw new UsageError(
        `${what} ${file} is larger than ${MAX_FILE_BYTES} bytes, the most read; stack files, policy configs and kubeconfigs are a few KiB`,
      );
    return buf.subarray(0, n);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** Decodes strict UTF-8, naming the encoding or the line when the bytes are something else. */
export function decodeUtf8(buf: Buffer, label: string): string {
  const bom16 = buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
  if (bom16 || buf.includes(0))
    throw new UsageError(
      `${label} is not understood: it looks UTF-16 or binary (it has ${bom16 ? "a UTF-16 byte-order mark" : "NUL bytes"}); save it as UTF-8`,
    );
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    let line = 1;
    for (let start = 0; start < buf.length; line++) {
      const end = buf.indexOf(0x0a, start);
      const stop = end < 0 ? buf.length : end;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(start, stop));
      } catch {
        break;
      }
      start = stop + 1;
    }
    throw new UsageError(`${label} is not valid UTF-8 (first bad byte on line ${line}); save it as UTF-8`);
  }
}
