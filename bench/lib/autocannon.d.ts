// The part of autocannon 8's API that the benchmark uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    type RawRequest = { method?: string; path?: string; headers?: Record<string, string>; body?: string };

    type Request = RawRequest & {
      /** Called before each request; returns the request to send. */
      setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest;
    };

    type Options = {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Milliseconds between samples. */
      sampleInt?: number;
      timeout?: number;
      requests?: Request[];
    };

    type Histogram = {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
    };

    type Result = {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
    };

    type Instance = Promise<Result> & EventEmitter & { stop(): void };
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
