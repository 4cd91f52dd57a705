/** The few HTTP calls the benchmark makes outside autocannon: login, setup and probes. */

export const SESSION_COOKIE = "pagewright_session";

export type Answer = { status: number; text: string; body: unknown };

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown } = {},
): Promise<Answer & { setCookie: string[] }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, text, body, setCookie: response.headers.getSetCookie() };
}

/** Logs in over HTTP, as a script would; returns the session cookie (`name=value`). */
export async function login(baseUrl: string, username: string, password: string): Promise<string> {
  const answer = await call(baseUrl, "POST", "/auth/login-local", { body: { username, password } });
  if (answer.status !== 200) throw new Error(`login as ${username} failed: ${answer.status} ${shorten(answer.text)}`);
  for (const line of answer.setCookie) {
    const [pair] = line.split(";");
    if (pair.startsWith(`${SESSION_COOKIE}=`) && pair.length > SESSION_COOKIE.length + 1) return pair;
  }
  throw new Error(`login as ${username} answered 200 without a ${SESSION_COOKIE} cookie`);
}

/**
 * Creates `count` jobs through the API, `concurrency` requests at a time (one batch after the
 * other); every answer must be 201. Calls `progress` after each batch.
 */
export async function createJobs(
  baseUrl: string,
  cookie: string,
  count: number,
  body: (index: number) => unknown,
  options: { concurrency: number; progress(done: number): void },
): Promise<void> {
  for (let start = 0; start < count; start += options.concurrency) {
    const end = Math.min(start + options.concurrency, count);
    const answers = await Promise.all(
      Array.from({ length: end - start }, (_, i) =>
        call(baseUrl, "POST", "/api/spaces/default/jobs", { cookie, body: body(start + i) }),
      ),
    );
    const refused = answers.find((a) => a.status !== 201);
    if (refused) throw new Error(`creating job ${start + 1}… answered ${refused.status}: ${shorten(refused.text)}`);
    options.progress(end);
  }
}

export function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
