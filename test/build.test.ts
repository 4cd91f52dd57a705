import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * tsc emits only compiled modules: every other file under src/ that the server reads at run time
 * must be copied by scripts/copy-assets.mjs, or the built server (npm start) misses it.
 */
describe("the build", () => {
  it("copies every non-TypeScript file of src/ to dist/", () => {
    const script = fs.readFileSync("scripts/copy-assets.mjs", "utf8");
    const assets = JSON.parse(
      /const assets = (\[[^\]]*\]);/.exec(script)?.[1].replaceAll("'", '"') ?? "[]",
    ) as string[];
    const files = (fs.readdirSync("src", { recursive: true }) as string[]).filter(
      (file) => !file.endsWith(".ts") && fs.statSync(path.join("src", file)).isFile(),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(
        assets.some((folder) => file.startsWith(`${folder}/`)),
        `${file} is read at run time but not copied by scripts/copy-assets.mjs`,
      ).toBe(true);
    }
  });
});
