import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startHttpReceiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { queueRun, readRun, waitFor } from "./fault-helpers.js";

/**
 * A delivery target that never answers and a browser that dies under a run. The delivery wait
 * is the product's own, shortened: DELIVERY_TIMEOUT_MS is one minute, too long for a test file.
 */
const TIMEOUT_MS = vi.hoisted(() => 2000);
vi.mock("../../src/delivery/delivery.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../src/delivery/delivery.js")>()),
  DELIVERY_TIMEOUT_MS: TIMEOUT_MS,
}));

/** A TCP server that accepts connections, reads what comes, and never answers. */
async function startHangingReceiver() {
  const connections: { openedAt: number; closedAt?: number; bytes: number }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = { openedAt: Date.now(), closedAt: undefined as number | undefined, bytes: 0 };
    connections.push(connection);
    sockets.add(socket);
    socket.on("data", (chunk) => {
      connection.bytes += chunk.length;
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      connection.closedAt = Date.now();
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    connections,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a delivery target that accepts the connection and never answers", () => {
  let server: TestServer;
  let site: TestSite;
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
  let http: Awaited<ReturnType<typeof startHttpReceiver>>;
  beforeAll(async () => {
    [server, site, hanging, http] = await Promise.all([
      // One slot: the next run can only start if the hanging one gave its slot back.
      startTestServer("sqlite", { WORKER_COUNT: "1" }),
      startTestSite(),
      startHangingReceiver(),
      startHttpReceiver(),
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([site?.stop(), hanging?.stop(), http?.stop()]);
  });

  const webhook = async (url: string) => {
    const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: `Hook ${url}`,
      type: "webhook",
      config: { url },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };
  const job = async (interfaceIds: string[]) => {
    const answer = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        cron: null,
        capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] },
        deliveries: interfaceIds.map((interfaceId) => ({ interfaceId, message: "report {{ run.reportUrl }}" })),
      }),
    );
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };

  it("gives up after the delivery timeout, records why, and frees the slot for the next run", async () => {
    const hangingId = await webhook(hanging.url);
    const hangingJob = await job([hangingId]);
    const quickJob = await job([]);
    hanging.connections.length = 0;

    const stream = postStream(server.admin, `/api/spaces/default/jobs/${hangingJob}/run`);
    // Queued behind it on the only slot.
    await waitFor("the webhook connection", async () => hanging.connections.length === 1);
    const next = await queueRun(server.admin, quickJob);
    const { end } = await stream;

    expect(end.state).toBe("failed");
    expect(end.error.message).toMatch(/^no delivery reached its destination: no answer in time/);
    expect(end.deliveries).toHaveLength(1);
    expect(end.deliveries[0]).toMatchObject({ state: "failed", error: "no answer in time", interfaceId: hangingId });
    // The request went out whole, and Pagewright hung up itself, at its timeout.
    const [connection] = hanging.connections;
    expect(connection.bytes).toBeGreaterThan(0);
    await waitFor("the webhook connection closed", async () => connection.closedAt !== undefined, 2000);
    const waited = (connection.closedAt ?? 0) - connection.openedAt;
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(waited).toBeLessThan(TIMEOUT_MS + 1000);
    const stored = await readRun(server.admin, end.runId);
    expect(stored.deliveries[0]).toMatchObject({ state: "failed", error: "no answer in time" });

    await waitFor(
      "the queued run ran on the freed slot",
      async () => (await readRun(server.admin, next)).state === "success",
    );
    await waitFor("no run left in a slot", async () => server.ctx.worker.active === 0);
  });

  it("a hanging target among good ones makes the run partial, the others get the report", async () => {
    const hangingId = await webhook(hanging.url);
    const goodId = await webhook(`${http.url}/good`);
    const both = await job([hangingId, goodId]);
    http.calls.length = 0;
    const started = Date.now();
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${both}/run`);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 3000);
    expect(end.state).toBe("partial");
    expect(end.error.message).toMatch(/1 of 2 deliveries failed: no answer in time/);
    expect(http.calls.map((c) => c.path)).toEqual(["/good"]);
    const byInterface = Object.fromEntries(
      end.deliveries.map((d: { interfaceId: string; state: string }) => [d.interfaceId, d.state]),
    );
    expect(byInterface).toEqual({ [hangingId]: "failed", [goodId]: "sent" });
  });
});

/** The pids of the Chromium browsers this process launched (its direct children). */
function browserPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …; comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === process.pid && /chrom|headless_shell/i.test(command)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe.skipIf(process.platform !== "linux")("a browser that crashes in the middle of a run", () => {
  let server: TestServer;
  let site: TestSite;
  beforeAll(async () => {
    [server, site] = await Promise.all([startTestServer("sqlite"), startTestSite()]);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
  });

  it("fails that run naming the cause; the next run gets a new browser and succeeds", async () => {
    const slow = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          cron: null,
          capture: {
            steps: [
              { type: "navigate", url: `${site.url}/slow?ms=8000` },
              { type: "extract", as: "value", selector: "#slow-value" },
            ],
          },
        }),
      )
    ).body;
    site.requests.length = 0;
    const stream = postStream(server.admin, `/api/spaces/default/jobs/${slow.id}/run`);
    await waitFor("the browser asked for the slow page", async () =>
      site.requests.some((r) => r.path.startsWith("/slow")),
    );
    const launches = server.ctx.pool.launches;
    const [pid] = browserPids();
    expect(pid).toBeDefined();
    const started = Date.now();
    // Its own process group (Playwright starts it detached): the renderers go with it, as in a crash.
    process.kill(-pid, "SIGKILL");
    const { end } = await stream;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(end.state).toBe("failed");
    expect(end.error.message).toMatch(/^Chromium exited during the run: navigate .*\/slow\?ms=8000: .*closed/);
    const steps = (await readRun(server.admin, end.runId)).steps;
    expect(steps.map((s: { type: string; state: string }) => [s.type, s.state])).toEqual([
      ["navigate", "failed"],
      ["extract", "skipped"],
    ]);

    const again = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({ cron: null, capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] } }),
      )
    ).body;
    const next = await postStream(server.admin, `/api/spaces/default/jobs/${again.id}/run`);
    expect(next.end.error).toBeNull();
    expect(next.end.state).toBe("success");
    expect(server.ctx.pool.launches).toBe(launches + 1);
    expect(server.ctx.worker.active).toBe(0);
  });
});
