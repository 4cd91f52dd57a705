import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { readRun, waitFor } from "./fault-helpers.js";

/**
 * The files folder (DATA_DIR/files) is full: a small tmpfs mounted there and filled up, so that
 * writes fail with the kernel's own ENOSPC. Where mounting is not allowed (not root, no
 * CAP_SYS_ADMIN), the server's file store is made to fail the same way instead.
 */

/** Mounts a 1 MiB tmpfs on `folder`; false when this machine does not allow it. */
function mountSmallTmpfs(folder: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Fills the file system of `folder` to its last block; answers the filler's path. */
function fillUp(folder: string): string {
  const filler = path.join(folder, "filler.bin");
  const fd = fs.openSync(filler, "w");
  try {
    const chunk = Buffer.alloc(64 * 1024, 1);
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

const filesUnder = (folder: string): string[] =>
  fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .flatMap((entry) => (entry.isFile() ? [path.join(entry.parentPath, entry.name)] : []));

const SNAPSHOT_STEP = "5d0c6a0e-8f3b-4b7e-9c1d-2a4f6e8b0c13";

describe("a full disk under the files folder", () => {
  let site: TestSite;
  let server: TestServer;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-full-disk-"));
  const filesDir = path.join(dataDir, "files");
  let mounted = false;
  /** Makes the files folder full; answers how to give the space back. */
  let makeFull: () => () => void;

  beforeAll(async () => {
    fs.mkdirSync(filesDir);
    mounted = process.platform === "linux" && mountSmallTmpfs(filesDir);
    if (!mounted)
      console.warn("full-disk test: tmpfs cannot be mounted here; the file store fails with ENOSPC instead");
    site = await startTestSite();
    server = await startTestServer("sqlite", { WORKER_COUNT: "1" }, { dataDir });
    makeFull = () => {
      if (mounted) {
        const filler = fillUp(filesDir);
        return () => fs.rmSync(filler);
      }
      const files = server.ctx.files;
      const put = files.put;
      files.put = async () => {
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
          errno: -28,
          syscall: "write",
        });
      };
      return () => {
        files.put = put;
      };
    };
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
    if (mounted) execFileSync("umount", [filesDir]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const create = async (steps: unknown[]) => {
    const answer = await server.admin.post("/api/spaces/default/jobs", jobBody({ cron: null, capture: { steps } }));
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };

  it("fails the runs that write files with the cause, keeps the API up, and runs again once there is space", async () => {
    const withSnapshot = await create([
      { type: "navigate", url: `${site.url}/table` },
      { id: SNAPSHOT_STEP, type: "snapshot", as: "table" },
    ]);
    // No snapshot: its only file is the report.
    const reportOnly = await create([
      { type: "navigate", url: `${site.url}/table` },
      { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
    ]);
    const giveSpaceBack = makeFull();
    try {
      const snapshotRun = await postStream(server.admin, `/api/spaces/default/jobs/${withSnapshot}/run`);
      expect(snapshotRun.end.state).toBe("failed");
      expect(snapshotRun.end.error).toMatchObject({ stepId: SNAPSHOT_STEP });
      expect(snapshotRun.end.error.message).toMatch(/^snapshot: .*ENOSPC: no space left on device/);

      const reportRun = await postStream(
        server.admin,
        `/api/spaces/default/jobs/${reportOnly}/run`,
        {},
        { timeoutMs: 20_000 },
      );
      expect(reportRun.end?.state).toBe("failed");
      expect(reportRun.end.error.message).toMatch(/^report: .*ENOSPC: no space left on device/);
      // Recorded, not only streamed: the run is finished in the database, and its slot is free.
      const stored = await readRun(server.admin, reportRun.end.runId);
      expect(stored.state).toBe("failed");
      expect(stored.error?.message).toMatch(/no space left on device/);
      await waitFor("the worker slot is free", async () => server.ctx.worker.active === 0, 5000);

      // The rest of the service goes on: reading, listing and writing jobs (the database is elsewhere).
      expect((await server.admin.get("/api/spaces/default/jobs")).status).toBe(200);
      expect((await server.admin.get(`/api/spaces/default/runs?jobId=${withSnapshot}`)).body.items).toHaveLength(1);
      await create([{ type: "navigate", url: `${site.url}/table` }]);
      expect((await server.admin.get("/healthz")).status).toBeLessThan(500);

      // No half-written file is left behind to take space (or to be served) later.
      if (mounted) expect(filesUnder(filesDir).filter((f) => !f.endsWith("filler.bin"))).toEqual([]);
    } finally {
      giveSpaceBack();
    }

    const again = await postStream(server.admin, `/api/spaces/default/jobs/${withSnapshot}/run`);
    expect(again.end.error).toBeNull();
    expect(again.end.state).toBe("success");
    expect(await server.ctx.files.get(`runs/${again.end.runId}/table.png`)).toBeDefined();
    expect((await postStream(server.admin, `/api/spaces/default/jobs/${reportOnly}/run`)).end.state).toBe("success");
  });
});
