/** The Markdown table every `plan.md` section uses (one shape, so the sections line up). Pure. */

/** A Markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}
