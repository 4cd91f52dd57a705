/** Plain-text tables and number formats for the benchmark's output. */

export type Align = "left" | "right";
export type Column = { title: string; align?: Align };

export function table(columns: Column[], rows: string[][], indent = "  "): string {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    indent +
    cells
      .map((cell, i) => ((columns[i].align ?? "right") === "left" ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  const rule = indent + widths.map((w) => "─".repeat(w)).join("  ");
  return [line(columns.map((c) => c.title)), rule, ...rows.map(line)].join("\n");
}

export const integer = (n: number) => Math.round(n).toLocaleString("en-US");

/** Milliseconds with precision that suits their size. */
export const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export const kilobytes = (bytes: number) => (bytes >= 10_240 ? (bytes / 1024).toFixed(0) : (bytes / 1024).toFixed(1));

/** a ÷ b as "0.42×"; "–" when b is zero. */
export function ratio(a: number, b: number): string {
  if (!b) return "–";
  const r = a / b;
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}
