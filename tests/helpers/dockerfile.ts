/**
 * Typed readers over dockerfile-ast shared by the Dockerfile tests: the parser returns plain `Instruction`s, and
 * the ARG/ENV properties and the `--from`/`--mount` flags live on subclasses, so each reader narrows with
 * `instanceof` instead of a cast.
 */
import { strict as assert } from "assert";
import { Arg, Dockerfile, DockerfileParser, Env, ModifiableInstruction } from "dockerfile-ast";

/** One `ARG name[=default]` declaration with its 0-based line. */
export interface ArgProperty {
  readonly name: string;
  readonly value: string | null;
  readonly line: number;
}

/** Every ARG declaration of the file, in file order. */
export function argProperties(df: Dockerfile): ArgProperty[] {
  return df.getInstructions().flatMap((i) => {
    const p = i instanceof Arg ? i.getProperty() : null;
    return p ? [{ name: p.getName(), value: p.getValue(), line: i.getRange().start.line }] : [];
  });
}

/** The defaults (`""` where none) of every `ARG name=...` declaration of `name` in `text`. */
export function argDefaults(text: string, name: string): string[] {
  return argProperties(DockerfileParser.parse(text))
    .filter((a) => a.name === name)
    .map((a) => a.value ?? "");
}

/** Every `ENV` key with its value (`""` where none) and 0-based line, in file order. */
export function envProperties(text: string): { name: string; value: string; line: number }[] {
  return DockerfileParser.parse(text)
    .getInstructions()
    .flatMap((i) =>
      i instanceof Env
        ? i
            .getProperties()
            .map((p) => ({ name: p.getName(), value: p.getValue() ?? "", line: i.getRange().start.line }))
        : [],
    );
}

/** `from=` references of `COPY --from` and `RUN --mount=...,from=...`, with their 0-based lines. */
export function fromReferences(df: Dockerfile): { ref: string; line: number }[] {
  return df.getInstructions().flatMap((ins) => {
    const line = ins.getRange().start.line;
    const flags = ins instanceof ModifiableInstruction ? ins.getFlags() : [];
    return flags.flatMap((f) => {
      if (f.getName() === "from") return [{ ref: f.getValue() ?? "", line }];
      if (f.getName() !== "mount") return [];
      return f
        .getOptions()
        .filter((o) => o.getName() === "from")
        .map((o) => ({ ref: o.getValue() ?? "", line }));
    });
  });
}

/** A Dockerfile rule: its name, the check (problems of a text), and a mutation the check must catch. */
export type RuleCase = [name: string, check: (text: string) => string[], mutate: (text: string) => string];

/**
 * Two tests per rule: the shipped text passes it, and its mutation (which must change the text) fails it, so no
 * rule can pass by checking nothing. Call inside a `describe`.
 */
export function itHoldsAndCatches(text: string, cases: readonly RuleCase[]): void {
  for (const [name, check, mutate] of cases) {
    it(name, () => assert.deepStrictEqual(check(text), []));
    it(`${name}: the mutation is caught`, () => {
      const mutated = mutate(text);
      assert.notStrictEqual(mutated, text, "the mutation changed nothing");
      assert.ok(check(mutated).length > 0, "the mutated Dockerfile passed");
    });
  }
}

/** One build stage: its name, its base image as written, and its text (FROM line to the next FROM). */
export interface StageText {
  readonly name: string;
  readonly from: string;
  readonly text: string;
}

/** Every stage of a Dockerfile in file order, from dockerfile-ast's FROM ranges. */
export function stageTexts(text: string): StageText[] {
  const lines = text.split("\n");
  const froms = DockerfileParser.parse(text).getFROMs();
  return froms.map((f, i) => ({
    name: f.getBuildStage() ?? `#${i}`,
    from: f.getImage() ?? "",
    text: lines
      .slice(f.getRange().start.line, i + 1 < froms.length ? froms[i + 1].getRange().start.line : lines.length)
      .join("\n"),
  }));
}

/** Shell lines of Dockerfile text with backslash continuations joined and comment lines dropped. */
export const shellLines = (text: string): string[] =>
  text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"));
