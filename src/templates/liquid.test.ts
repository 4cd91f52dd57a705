import { describe, expect, it } from "vitest";
import { checkTemplate, createLiquid } from "./liquid.js";

describe("Liquid sandbox", () => {
  it("accepts ordinary templates", () => {
    expect(checkTemplate("{{ errors }} errors on {{ now | date: '%Y-%m-%d' }}")).toBeNull();
    expect(checkTemplate("{% if errors > 3 %}many{% else %}few{% endif %}")).toBeNull();
  });

  it.each(["{% include 'secrets.txt' %}", "{% render '/etc/passwd' %}", "{% layout 'base' %}x"])(
    "refuses %s",
    (source) => {
      expect(checkTemplate(source)).toMatch(/not allowed: templates have no file access/);
    },
  );

  it("reports syntax errors in one line", () => {
    const error = checkTemplate("{% if x %}unclosed");
    expect(error).toMatch(/^Liquid: /);
    expect(error).not.toContain("\n");
    expect(checkTemplate("{{ x | no_such_filter }}")).toMatch(/undefined filter/);
  });

  it("cannot read files at render time either", async () => {
    const liquid = createLiquid();
    await expect(liquid.parseAndRender("{% include 'package.json' %}")).rejects.toThrow(/not allowed/);
  });
});
