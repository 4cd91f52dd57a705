import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "../helpers/client.js";

/** Helpers of the security suites: recording HTTP servers, polling, a latency probe. */

export type Recorded = {
  method: string;
  path: string;
  host: string;
  headers: http.IncomingHttpHeaders;
  at: number;
  body: string;
};

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, recorder: Recorder) => void;

export type Recorder = {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  requests: Recorded[];
  stop(): Promise<void>;
};

/**
 * A small HTTP server on 127.0.0.1 that records every request (headers included) and answers
 * with `handler`, or a tiny HTML page by default.
 */
export async function startRecorder(handler?: Handler): Promise<Recorder> {
  const requests: Recorded[] = [];
  const recorder = { requests } as Recorder;
  const server = http.createServer((req, res) => {
    const record: Recorded = {
      method: req.method ?? "",
      path: req.url ?? "",
      host: req.headers.host ?? "",
      headers: req.headers,
      at: Date.now(),
      body: "",
    };
    requests.push(record);
    req.on("data", (chunk: Buffer) => {
      record.body += chunk.toString("utf8");
    });
    if (handler) return handler(req, res, recorder);
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>ok</title><p id=v>42</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  recorder.url = `http://127.0.0.1:${port}`;
  recorder.port = port;
  recorder.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return recorder;
}

export const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Sends GET requests one after the other from another process (the server runs in this one,
 * so a stalled event loop would stall an in-process probe too) until `work` settles, and
 * answers the slowest latency seen.
 */
export async function slowestAnswerWhile(client: Client, path: string, work: Promise<unknown>): Promise<number> {
  const script = `
    let slowest = 0, stop = false, count = 0; // sequential requests until stdin ends
    process.stdin.on("data", () => {}).on("end", () => { stop = true; });
    (async () => {
      while (!stop) {
        const t0 = performance.now();
        try { await (await fetch(process.argv[1], { headers: { cookie: process.argv[2] } })).text(); } catch {}
        slowest = Math.max(slowest, performance.now() - t0);
        count++;
        await new Promise((r) => setTimeout(r, 5));
      }
      process.stdout.write(JSON.stringify({ slowest, count }));
    })();`;
  const child = spawn(process.execPath, ["-e", script, client.baseUrl + path, client.cookieHeader ?? ""], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await work.catch(() => undefined);
  child.stdin.end();
  await exited;
  const { slowest, count } = JSON.parse(out) as { slowest: number; count: number };
  if (count < 1) throw new Error("the latency probe made no request");
  return slowest;
}

/** What a stack trace or a source path looks like in an answer. */
export const STACK_TRACE = /\n\s+at |\bat [\w.<>]+ \(|\.(ts|js|mjs):\d+|node_modules|\/work\/|file:\/\//;
