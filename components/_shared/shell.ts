/**
 * POSIX shell quoting, shared by the worker command lines the plan shows (`commandLine`) and the
 * `docker build` line `image:args` prints, so both quote the same way. Pure.
 */

/** Characters that never need quoting in a POSIX shell word. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `s` as one shell word: unchanged when it is safe, else single-quoted (an embedded `'` becomes `'\''`). */
export function shellQuote(s: string): string {
  return SAFE_WORD.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
