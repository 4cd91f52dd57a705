/**
 * Reads the first number in a text as people write them on dashboards: "1,470,592" → 1470592,
 * "12.5 ms" → 12.5, "€ 12,345.67" → 12345.67, "+3.4%" → 3.4, "-7" → -7. Commas are thousands
 * separators. Returns undefined when there is no number.
 */
export function parseNumber(text: string): number | undefined {
  const match = /[-+−]?\s?\d[\d,]*(?:\.\d+)?|[-+−]?\.\d+/.exec(text.replace(/\u00a0|\u202f/g, " "));
  if (!match) return undefined;
  const cleaned = match[0].replace(/[\s,]/g, "").replace("−", "-");
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}
