import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserPool, createBrowserPool } from "../capture/browser-pool.js";
import { printPdf } from "./print-pdf.js";

const pageCount = (pdf: Buffer) => pdf.toString("latin1").match(/\/Type\s*\/Page\b/g)?.length ?? 0;

let pool: BrowserPool;
let server: http.Server;
let base: string;
const requests: string[] = [];

beforeAll(async () => {
  pool = createBrowserPool({ chromiumPath: process.env.CHROMIUM_PATH, log: pino({ level: "silent" }) });
  server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/html" }).end("<p>local</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await pool?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("printPdf", () => {
  // The HTML here has no CSP and nothing removed: the printer's own guards must hold alone.
  it("runs no script and requests nothing but data: URLs, even for HTML that asks", async () => {
    const html = `<!DOCTYPE html><html><head>
      <link rel="stylesheet" href="${base}/style.css">
      <style>@import url("${base}/import.css"); body { background: url("${base}/bg.png"); }</style>
      </head><body>
      <p>one page</p>
      <img src="${base}/img.png"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
      <iframe src="${base}/frame.html"></iframe><object data="${base}/object.html"></object>
      <script src="${base}/script.js"></script>
      <script>
        // Were scripts running, the PDF would have five pages and the server a request.
        for (let i = 0; i < 4; i++) {
          const div = document.createElement("div");
          div.style.breakBefore = "page";
          div.textContent = "script ran";
          document.body.append(div);
        }
        fetch("${base}/fetch");
      </script>
      </body></html>`;
    const pdf = await printPdf(html, { size: "Letter", orientation: "portrait" }, pool);
    expect(requests).toEqual([]);
    expect(pageCount(pdf)).toBe(1);
    const box = pdf.toString("latin1").match(/\/MediaBox\s*\[0 0 ([\d.]+) ([\d.]+)\]/);
    expect(Number(box?.[1])).toBeCloseTo(612, -0.5);
    expect(Number(box?.[2])).toBeCloseTo(792, -0.5);
  });
});
