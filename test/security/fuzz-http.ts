import http from "node:http";
import { ErrorSchema, IssueSchema } from "../../src/schemas/errors.js";

/**
 * Sends the fuzz's requests exactly as built (node:http: fetch would normalise `..` away and
 * refuse some bodies) and judges each answer against DESIGN.md's error contract.
 */

export type FuzzRequest = {
  method: string;
  /** As sent on the wire: percent-encoded where meant, raw where meant. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  chunked?: boolean;
  timeoutMs: number;
};

export type FuzzAnswer =
  | { status: number; contentType: string; text: string; ms: number; streamed: boolean }
  | { error: string; ms: number };

/** How much of an event stream is read before the client leaves (the server stops a preview or test). */
const STREAM_READ_MS = 300;
/** Answers are judged on their first bytes; the OpenAPI description is the largest, about 100 KB. */
const MAX_TEXT = 4 * 1024 * 1024;

export function createSender(baseUrl: string, concurrency: number) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  /**
   * A keep-alive socket the server closed just as the client reused it resets the next request
   * before it was read (the race Node's docs describe for `reusedSocket`): that request is sent
   * again once, on a fresh connection. A reset on a fresh connection is a failure.
   */
  const send = async (request: FuzzRequest): Promise<FuzzAnswer> => {
    const answer = await sendOnce(request, agent);
    // Without an agent there is no reused socket, hence no second retry.
    if ("retry" in answer) return (await sendOnce(request, false)) as FuzzAnswer;
    return answer;
  };
  const sendOnce = (request: FuzzRequest, via: http.Agent | false): Promise<FuzzAnswer | { retry: true }> =>
    new Promise((resolve) => {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      let settled = false;
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (answer: FuzzAnswer | { retry: true }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined && !request.chunked) headers["content-length"] = Buffer.byteLength(request.body);
      let req: http.ClientRequest;
      try {
        req = http.request({ host: hostname, port, method: request.method, path: request.path, headers, agent: via });
      } catch (error) {
        // The client itself refused (a header it will not send): not the server's doing.
        finish({
          status: 0,
          contentType: "",
          text: `client refused: ${(error as Error).message}`,
          ms: 0,
          streamed: false,
        });
        return;
      }
      timer = setTimeout(() => {
        req.destroy();
        finish({ error: `no answer within ${request.timeoutMs} ms`, ms: ms() });
      }, request.timeoutMs);
      req.on("response", (res) => {
        answered = true;
        const contentType = String(res.headers["content-type"] ?? "");
        const streamed = contentType.startsWith("text/event-stream");
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            status: res.statusCode ?? 0,
            contentType,
            text: Buffer.concat(chunks).toString("utf8"),
            ms: ms(),
            streamed,
          });
        res.on("data", (chunk: Buffer) => {
          if (size < MAX_TEXT) chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", done);
        res.on("error", done);
        res.on("close", done);
        if (streamed) {
          setTimeout(() => {
            done();
            req.destroy();
          }, STREAM_READ_MS);
        }
      });
      req.on("error", (error) => {
        // A server that answered (413) and closed while the body was still going out is fine:
        // the answer wins. Before any answer, a reset is a failure.
        const code = (error as NodeJS.ErrnoException).code;
        if (answered) return;
        if (via && req.reusedSocket && (code === "ECONNRESET" || code === "EPIPE")) finish({ retry: true });
        else finish({ error: `connection: ${code ?? error.message}`, ms: ms() });
      });
      if (request.body === undefined) {
        req.end();
      } else if (request.chunked) {
        const body = Buffer.from(request.body);
        const write = (offset: number) => {
          if (req.destroyed || answered || offset >= body.length) return void req.end();
          req.write(body.subarray(offset, offset + 256 * 1024), () => write(offset + 256 * 1024));
        };
        write(0);
      } else {
        req.end(request.body);
      }
    });
  return { send, close: () => agent.destroy() };
}

/** Which `error` each status carries (DESIGN.md "Errors"). */
const ERROR_OF_STATUS: Record<number, string[]> = {
  400: ["invalid"],
  401: ["unauthorized"],
  403: ["forbidden", "cross_origin"],
  404: ["not_found"],
  409: ["conflict"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  429: ["too_many_requests"],
};

/** What must never be in an answer: a stack trace, a source path, a file read through traversal. */
const LEAKS: [string, RegExp][] = [
  // Not security-helpers' STACK_TRACE: the guide's own text ("at 9 (Rome time)", a `file:///`
  // example) would match it, and the fuzz reads every answer, guide pages included.
  ["stack frame", /(?:^|\n|\\n)\s*at [^\n]*:\d+:\d+\)?/],
  ["source position", /\.(?:ts|js|mjs|cjs):\d+:\d+/],
  ["node internals", /node:internal|node_modules\//],
  ["source folder", /\/src\/[\w/.-]+\.(ts|js)\b/],
  ["the server's folder", new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))],
  ["error with a file path", /\b\w*Error: [^\n"]*\s\/(?:[\w.-]+\/)+[\w.-]*/],
  ["/etc/passwd", /root:x:0:0:/],
  ["package.json", /"devDependencies"\s*:/],
  ["private key", /BEGIN [A-Z ]*PRIVATE KEY/],
];

/** Everything wrong with one answer, as short sentences; empty when it is fine. */
export function problemsOf(answer: FuzzAnswer, expectStatus?: number, secrets: string[] = []): string[] {
  if ("error" in answer) return [answer.error];
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (expectStatus !== undefined && answer.status !== expectStatus) {
    problems.push(`status ${answer.status}, expected ${expectStatus}`);
  }
  for (const [what, pattern] of LEAKS) if (pattern.test(answer.text)) problems.push(`${what} in the answer`);
  for (const secret of secrets) if (answer.text.includes(secret)) problems.push("a secret in the answer");
  if (answer.status >= 400 && answer.status !== 0) problems.push(...errorShapeProblems(answer));
  return problems;
}

function errorShapeProblems(answer: { status: number; contentType: string; text: string }): string[] {
  if (!answer.contentType.includes("json")) {
    return answer.text === ""
      ? []
      : [`a ${answer.status} answer that is not JSON (${answer.contentType || "no type"})`];
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`a ${answer.status} answer with invalid JSON`];
  }
  const parsed = ErrorSchema.safeParse(body);
  if (!parsed.success) return [`a ${answer.status} answer not of the Error shape`];
  const allowed = ERROR_OF_STATUS[answer.status];
  if (allowed && !allowed.includes(parsed.data.error)) {
    return [`${answer.status} with error "${parsed.data.error}", expected ${allowed.join(" or ")}`];
  }
  if (answer.status === 400) {
    const issues = parsed.data.issues;
    if (!Array.isArray(issues) || issues.length === 0) return ["a 400 without issues"];
    if (!issues.every((issue) => IssueSchema.safeParse(issue).success)) return ["a 400 with malformed issues"];
  }
  return [];
}
