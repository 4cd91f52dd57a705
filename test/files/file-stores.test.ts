import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileStore } from "../../src/files/file-store.js";
import { createLocalFileStore } from "../../src/files/local-file-store.js";
import { createS3FileStore, parseFilesUrl } from "../../src/files/s3-file-store.js";
import { startS3Receiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/** The same contract for both stores: the local folder (embedded) and an S3 bucket (scale-out, s3rver). */
describe("file stores", () => {
  let s3: Awaited<ReturnType<typeof startS3Receiver>>;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-files-"));
  const stores: Record<string, () => FileStore> = {};

  beforeAll(async () => {
    s3 = await startS3Receiver("pagewright");
    const settings = {
      endpoint: s3.endpoint,
      region: "us-east-1",
      ...s3.credentials,
      forcePathStyle: true,
    };
    stores.local = () => createLocalFileStore(root);
    stores.s3 = () => createS3FileStore("s3://pagewright/some/prefix", settings);
  });

  afterAll(async () => {
    await s3?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("reads the bucket and prefix of FILES_URL", () => {
    expect(parseFilesUrl("s3://reports")).toEqual({ bucket: "reports", prefix: "" });
    expect(parseFilesUrl("s3://reports/a/b/")).toEqual({ bucket: "reports", prefix: "a/b/" });
  });

  for (const kind of ["local", "s3"]) {
    it(`${kind}: stores, reads and deletes a run's files, and nothing of another run`, async () => {
      const store = stores[kind]();
      await store.put("runs/r1/page.png", Buffer.from("png-1"), "image/png");
      await store.put("runs/r1/report.html", Buffer.from("<p>1</p>"), "text/html");
      await store.put("runs/r10/page.png", Buffer.from("png-10"), "image/png");
      expect((await store.get("runs/r1/page.png"))?.toString()).toBe("png-1");
      expect(await store.get("runs/r1/missing.png")).toBeUndefined();
      await store.deletePrefix("runs/r1");
      expect(await store.get("runs/r1/page.png")).toBeUndefined();
      expect(await store.get("runs/r1/report.html")).toBeUndefined();
      // runs/r10 shares the characters "runs/r1" but is another folder.
      expect((await store.get("runs/r10/page.png"))?.toString()).toBe("png-10");
    });

    it(`${kind}: refuses keys that could leave the store`, async () => {
      const store = stores[kind]();
      for (const key of ["../secret", "runs/../../etc/passwd", "/etc/passwd", "runs//x", "runs/.hidden"]) {
        await expect(store.get(key)).rejects.toThrow(/invalid file key/);
        await expect(store.put(key, Buffer.from("x"), "text/plain")).rejects.toThrow(/invalid file key/);
      }
    });
  }
});

describe("a server with FILES_URL=s3://…", () => {
  let s3: Awaited<ReturnType<typeof startS3Receiver>>;
  let server: TestServer;
  let site: TestSite;

  beforeAll(async () => {
    [s3, site] = await Promise.all([startS3Receiver("reports"), startTestSite()]);
    server = await startTestServer("sqlite", {
      FILES_URL: "s3://reports/pagewright",
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await site?.stop();
    await s3?.stop();
  });

  const objects = async () => {
    const client = new S3Client({
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
    });
    const page = await client.send(new ListObjectsV2Command({ Bucket: "reports" }));
    return (page.Contents ?? []).map((o) => o.Key ?? "");
  };

  it("keeps snapshots and reports in the bucket, serves them by token link, deletes them with the job", async () => {
    const job = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        name: "Into the bucket",
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/table` },
            { type: "snapshot", as: "table", selector: "table" },
          ],
        },
      }),
    );
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${job.body.id}/run`);
    expect(stream.end.ok).toBe(true);
    const runId = stream.end.runId;
    expect(await objects()).toEqual(
      expect.arrayContaining([`pagewright/runs/${runId}/table.png`, `pagewright/runs/${runId}/report.html`]),
    );
    // Served through the same token-checked links as local files; without the token, 404.
    const snapshot = await fetch(`${server.url}${stream.end.snapshots[0].url}`);
    expect(snapshot.status).toBe(200);
    expect(
      Buffer.from(await snapshot.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    const bare = stream.end.snapshots[0].url.split("?")[0];
    expect((await fetch(`${server.url}${bare}`)).status).toBe(404);
    // The PDF, printed on first request, is stored in the bucket too.
    const pdf = stream.end.files.find((f: { kind: string }) => f.kind === "pdf");
    expect((await fetch(`${server.url}${pdf.url}`)).status).toBe(200);
    expect(await objects()).toContain(`pagewright/runs/${runId}/report.pdf`);

    expect((await server.admin.delete(`/api/spaces/default/jobs/${job.body.id}`)).status).toBe(204);
    expect((await objects()).filter((key) => key.includes(runId))).toEqual([]);
  }, 60_000);
});
