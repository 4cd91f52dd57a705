import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * How the server answers for the web app, built or not (the browser test builds it; this file
 * holds whichever state dist/ui is in): pages for browsers, JSON 404s for the server's areas.
 */
describe("serving the web app", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("sqlite", {}, { worker: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const page = (path: string, accept = "text/html,application/xhtml+xml") =>
    fetch(server.url + path, { headers: { accept } });

  it("answers / and the app's own paths with an HTML page that links the guide", async () => {
    for (const path of ["/", "/s/default/jobs", "/s/default/runs/0c0a4c56-0000-4000-8000-000000000000", "/login"]) {
      const answer = await page(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await answer.text()).toContain('<link rel="alternate" type="text/markdown" href="/llms.txt"');
    }
  });

  it("keeps 404 JSON for unknown paths of the server's areas, even for browsers", async () => {
    for (const path of ["/api/nope", "/ui-api/nope", "/auth/nope", "/files/nope", "/guest/nope", "/llms/nope"]) {
      const answer = await page(path);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toEqual({ error: "not_found" });
    }
  });

  it("answers 404 JSON to a client that does not ask for a page", async () => {
    const answer = await page("/s/default/jobs", "application/json");
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: "not_found" });
    expect((await page("/assets/missing.js", "*/*")).status).toBe(404);
  });

  it("never serves a file from outside the build", async () => {
    for (const path of [
      "/..%2f..%2fpackage.json",
      "/%2e%2e/%2e%2e/package.json",
      "/assets/..%2f..%2f..%2fpackage.json",
    ]) {
      const answer = await page(path, "*/*");
      expect(answer.status, path).toBe(404);
      expect(await answer.text()).not.toContain('"name": "pagewright"');
    }
  });

  it("leaves the guide and the API as they are", async () => {
    expect((await page("/llms.txt")).headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await page("/api/agent/context", "application/json")).status).toBe(401);
  });
});
