import { describe, expect, it } from "vitest";
import { evaluate, parseExpression } from "./expression.js";

const run = (source: string, variables: Record<string, unknown> = {}) => evaluate(parseExpression(source), variables);

describe("expressions", () => {
  it("computes arithmetic, comparisons, logic and functions", () => {
    expect(run("round(errors / total * 100, 1)", { errors: 7, total: 9 })).toBe(77.8);
    expect(run("errors > 100 && region == 'eu'", { errors: 150, region: "eu" })).toBe(true);
    expect(run("!(a < b) ? 'x' : 'y'", { a: 1, b: 2 })).toBe("y");
    expect(run("max(a, b, 3) + min(1, 2)", { a: 10, b: 4 })).toBe(11);
    expect(run("'n=' + n", { n: 4 })).toBe("n=4");
    expect(run("percent(1, 4)")).toBe(25);
    expect(run("contains(lower(s), 'ok')", { s: "All OK" })).toBe(true);
  });

  it("reads captured numbers with thousands separators", () => {
    expect(run("count > 1000000", { count: "1,470,592" })).toBe(true);
    expect(run("number(count) + 1", { count: "1,470,592" })).toBe(1470593);
  });

  it("lists the identifiers it reads", () => {
    expect(parseExpression("a + round(b) > c").identifiers.sort()).toEqual(["a", "b", "c"]);
  });

  it.each([
    ["a.b", /member access/],
    ["a['constructor']", /member access/],
    ["process.exit()", /member access|unknown function/],
    ["eval('1')", /unknown function eval/],
    ["this", /not allowed/],
    ["[1, 2]", /not allowed/],
    ["a = 1", /./],
    ["1 +", /Expected expression/],
    [`1${"+1".repeat(600)}`, /longer than 1000/],
  ])("refuses %s", (source, message) => {
    expect(() => parseExpression(source)).toThrow(message);
  });

  it("fails on unknown variables at run time, naming them", () => {
    expect(() => run("missing + 1")).toThrow(/unknown variable missing/);
    expect(() => run("toString")).toThrow(/unknown variable toString/);
  });
});
