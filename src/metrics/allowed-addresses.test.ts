import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.js";
import { createAllowedAddresses, isAddressOrCidr } from "./allowed-addresses.js";

describe("METRICS_ALLOW addresses", () => {
  it("matches single addresses and CIDRs of both families", () => {
    const allowed = createAllowedAddresses(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]);
    expect(allowed.allows("127.0.0.1")).toBe(true);
    expect(allowed.allows("127.0.0.2")).toBe(false);
    expect(allowed.allows("10.200.3.4")).toBe(true);
    expect(allowed.allows("11.0.0.1")).toBe(false);
    expect(allowed.allows("::1")).toBe(true);
    expect(allowed.allows("fd12::5")).toBe(true);
    expect(allowed.allows("fe80::1")).toBe(false);
  });

  it("matches an IPv4 client seen through an IPv6 socket as its IPv4 address", () => {
    const allowed = createAllowedAddresses(["127.0.0.1"]);
    expect(allowed.allows("::ffff:127.0.0.1")).toBe(true);
    expect(allowed.allows("::ffff:127.0.0.9")).toBe(false);
  });

  it("allows nobody when empty, and nothing that is not an address", () => {
    expect(createAllowedAddresses([]).allows("127.0.0.1")).toBe(false);
    expect(createAllowedAddresses(["0.0.0.0/0"]).allows(undefined)).toBe(false);
    expect(createAllowedAddresses(["0.0.0.0/0"]).allows("localhost")).toBe(false);
  });

  it("knows what an entry may be", () => {
    for (const good of ["127.0.0.1", "10.0.0.0/8", "0.0.0.0/0", "::1", "2001:db8::/32"]) {
      expect(isAddressOrCidr(good), good).toBe(true);
    }
    for (const bad of ["localhost", "10.0.0.0/33", "10.0.0.0/x", "10.0.0.0/8/1", "::/129", "1.2.3"]) {
      expect(isAddressOrCidr(bad), bad).toBe(false);
    }
  });

  it("stops the start on a bad entry, naming the variable", () => {
    expect(() => loadConfig({ METRICS_ALLOW: "127.0.0.1, localhost" })).toThrow(/^Invalid METRICS_ALLOW/);
    expect(loadConfig({ METRICS_ALLOW: "127.0.0.1, 10.0.0.0/8" }).metricsAllow).toEqual(["127.0.0.1", "10.0.0.0/8"]);
  });
});
