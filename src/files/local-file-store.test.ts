import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalFileStore } from "./local-file-store.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-files-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("local file store", () => {
  const store = createLocalFileStore(root);

  it("stores, reads and deletes a run's files", async () => {
    await store.put("runs/r1/page.png", Buffer.from("png"), "image/png");
    expect((await store.get("runs/r1/page.png"))?.toString()).toBe("png");
    expect(await store.get("runs/r1/missing.png")).toBeUndefined();
    await store.deletePrefix("runs/r1");
    expect(await store.get("runs/r1/page.png")).toBeUndefined();
  });

  it.each([
    "../secret",
    "runs/../../etc/passwd",
    "runs/r1/..",
    "/etc/passwd",
    "runs//x",
    "runs/r1/a\\b",
    "runs/.hidden",
  ])("refuses the key %s", async (key) => {
    await expect(store.get(key)).rejects.toThrow(/invalid file key/);
    await expect(store.put(key, Buffer.from("x"), "text/plain")).rejects.toThrow(/invalid file key/);
  });
});
