import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      publicUrl: "http://localhost:3000",
      databaseUrl: undefined,
      adminUsername: "admin",
      adminPassword: "admin",
      workerCount: 2,
      logLevel: "info",
      healthAnonymous: "summary",
      limits: { edition: "unlimited", jobs: null, deliveryInterfaces: null, aiProviders: null, captureSteps: 500 },
    });
    expect(config.dataDir).toMatch(/data$/);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "8080",
      PUBLIC_URL: "https://reports.example.com/",
      DATABASE_URL: "postgres://u:p@db:5432/pw",
      LIMIT_JOBS: "5",
      LIMIT_CAPTURE_STEPS: "900",
      REPORT_ALLOWED_HOSTS: "intranet.local, grafana.local",
      TRUSTED_PROXIES: "10.0.0.0/8",
    });
    expect(config.publicUrl).toBe("https://reports.example.com");
    expect(config.limits).toMatchObject({ edition: "limited", jobs: 5, captureSteps: 500 });
    expect(config.reportAllowedHosts).toEqual(["intranet.local", "grafana.local"]);
    expect(config.trustedProxies).toBe("10.0.0.0/8");
  });

  it.each([
    ["PORT", "eighty", /Invalid PORT .*port number/],
    ["PORT", "70000", /Invalid PORT/],
    ["DATABASE_URL", "mysql://x", /Invalid DATABASE_URL .*postgres/],
    ["WORKER_COUNT", "0", /Invalid WORKER_COUNT .*≥ 1/],
    ["LOG_LEVEL", "loud", /Invalid LOG_LEVEL/],
    ["HEALTH_ANONYMOUS", "all", /Invalid HEALTH_ANONYMOUS/],
    ["LIMIT_JOBS", "-1", /Invalid LIMIT_JOBS/],
    ["PUBLIC_URL", "ftp://x", /Invalid PUBLIC_URL/],
    ["FILES_URL", "/tmp/files", /Invalid FILES_URL .*s3:\/\//],
  ])("stops on a bad %s with one line naming it", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it("never echoes a secret value in the error", () => {
    expect(() => loadConfig({ SECRET_KEY: "short" })).toThrow(/Invalid SECRET_KEY \("…"\)/);
  });
});
