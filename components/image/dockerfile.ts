/**
 * Minimal, dependency-free reading of a Dockerfile's structure for run-time checks (the full parser,
 * `dockerfile-ast`, is a dev dependency used by the contract tests). Pure functions over text.
 */

const FROM_AS = /^\s*FROM\s+(?:--\S+\s+)*\S+\s+AS\s+([A-Za-z0-9_.-]+)\s*$/i;
const ARG_DECL = /^\s*ARG\s+([A-Za-z_][A-Za-z0-9_]*)/i;

/** Lines that are instructions, not heredoc bodies (a heredoc runs from `<<WORD` to a line `WORD`). */
function instructionLines(text: string): string[] {
  const out: string[] = [];
  let heredocEnd: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (heredocEnd !== undefined) {
      if (line.trim() === heredocEnd) heredocEnd = undefined;
      continue;
    }
    out.push(line);
    const m = /<<-?\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?/.exec(line);
    if (m && !line.trimStart().startsWith("#")) heredocEnd = m[1];
  }
  return out;
}

/** Stage names (`FROM ... AS <name>`), in file order. */
export function stageNames(text: string): string[] {
  return instructionLines(text).flatMap((l) => {
    const m = FROM_AS.exec(l);
    return m ? [m[1]] : [];
  });
}

/** Every ARG name declared anywhere in the file (global or in a stage). */
export function declaredArgs(text: string): Set<string> {
  return new Set(
    instructionLines(text).flatMap((l) => {
      const m = ARG_DECL.exec(l);
      return m ? [m[1]] : [];
    }),
  );
}
