/** A small HTTP client with a cookie jar of one session, as a script outside a browser uses the API. */
export type Answer<T = unknown> = { status: number; headers: Headers; body: T; text: string };

export class Client {
  private cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  async login(username: string, password: string): Promise<Answer> {
    const answer = await this.request("POST", "/auth/login-local", { username, password });
    if (answer.status !== 200) throw new Error(`login as ${username} failed: ${answer.status} ${answer.text}`);
    return answer;
  }

  /** The Cookie header of the session, for raw fetches (event streams). */
  get cookieHeader() {
    return this.cookie;
  }

  get hasSession() {
    return this.cookie !== undefined;
  }

  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const init: RequestInit = {
      method,
      headers: {
        ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    };
    const response = await fetch(this.baseUrl + path, init);
    const setCookie = response.headers.getSetCookie();
    for (const line of setCookie) {
      const [pair] = line.split(";");
      const [name, value] = pair.split("=");
      if (name === "pagewright_session") this.cookie = value ? `${name}=${value}` : undefined;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get = (path: string) => this.request("GET", path);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.request("POST", path, body, headers);
  put = (path: string, body?: unknown, headers?: Record<string, string>) => this.request("PUT", path, body, headers);
  delete = (path: string, headers?: Record<string, string>) => this.request("DELETE", path, undefined, headers);
}
