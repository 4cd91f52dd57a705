import { describe, expect, it } from "vitest";
import { classifyAddress, isAllowedHost } from "./address-policy.js";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(classifyAddress(address)).toBe(reason);
  });

  it.each(["8.8.8.8", "172.32.0.1", "192.169.0.1", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows the public address %s",
    (address) => {
      expect(classifyAddress(address)).toBeNull();
    },
  );
});

describe("isAllowedHost", () => {
  it("matches host names and addresses, with or without a port", () => {
    expect(isAllowedHost(new URL("http://127.0.0.1:8080/x"), ["127.0.0.1"])).toBe(true);
    expect(isAllowedHost(new URL("http://127.0.0.1:8080/x"), ["127.0.0.1:8080"])).toBe(true);
    expect(isAllowedHost(new URL("http://127.0.0.1:8081/x"), ["127.0.0.1:8080"])).toBe(false);
    expect(isAllowedHost(new URL("http://Intranet.Example/x"), [" intranet.example "])).toBe(true);
    expect(isAllowedHost(new URL("http://[::1]:3000/x"), ["::1"])).toBe(true);
    expect(isAllowedHost(new URL("http://[::1]:3000/x"), ["[::1]:3000"])).toBe(true);
    expect(isAllowedHost(new URL("https://intranet.example/x"), ["intranet.example:443"])).toBe(true);
    expect(isAllowedHost(new URL("http://evil.example/x"), ["intranet.example", ""])).toBe(false);
    expect(isAllowedHost(new URL("http://intranet.example.evil.example/x"), ["intranet.example"])).toBe(false);
  });
});
