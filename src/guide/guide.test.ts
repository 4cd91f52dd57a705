import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.js";
import { STEP_SCHEMAS } from "../schemas/capture.js";
import { DeliverySchema } from "../schemas/delivery.js";
import { fieldsTable, GUIDE_PAGES, renderPage } from "./guide.js";

describe("guide generation", () => {
  it("lists the fields of schemas that have an id (resolved through $defs)", () => {
    const table = fieldsTable(DeliverySchema);
    for (const field of ["interfaceId", "message", "subject", "recipients", "attach", "formats"]) {
      expect(table).toContain(`| \`${field}\` |`);
    }
  });

  it("renders every page with no empty generated table and every step type documented", () => {
    const config = loadConfig({});
    for (const page of [...GUIDE_PAGES.map((p) => `${p}.md`), "llms.txt"]) {
      const text = renderPage(page, config);
      expect(text).not.toContain("<!-- generated:");
      // A table header followed by its separator and then no row is an empty generated table.
      expect(text, page).not.toMatch(
        /\| field \| type \| required \| default \| notes \|\n\|---\|---\|---\|---\|---\|\n(?!\|)/,
      );
    }
    const capture = renderPage("capture.md", config);
    for (const type of Object.keys(STEP_SCHEMAS)) expect(capture).toContain(`### \`${type}\``);
  });
});
