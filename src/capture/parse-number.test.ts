import { describe, expect, it } from "vitest";
import { parseNumber } from "./parse-number.js";

describe("parseNumber", () => {
  it.each([
    ["1,470,592", 1470592],
    ["12.5 ms", 12.5],
    ["€ 12,345.67", 12345.67],
    ["+3.4%", 3.4],
    ["-7 items", -7],
    ["−2", -2],
    ["Errors: 42 (last hour)", 42],
    ["1 234", 1],
    [".5", 0.5],
  ])("reads %s as %d", (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it("answers undefined without a number", () => {
    expect(parseNumber("OK")).toBeUndefined();
    expect(parseNumber("")).toBeUndefined();
  });
});
