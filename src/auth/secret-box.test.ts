import { describe, expect, it } from "vitest";
import { createSecretBox } from "./secret-box.js";

describe("secret box", () => {
  it("round-trips values and never stores them in the clear", () => {
    const box = createSecretBox("a-long-test-secret-key");
    const sealed = box.seal({ password: "hunter2-secret" });
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain("hunter2");
    expect(box.open(sealed)).toEqual({ password: "hunter2-secret" });
    expect(box.seal({ a: 1 })).not.toBe(box.seal({ a: 1 }));
  });

  it("refuses to open with another key or after tampering", () => {
    const sealed = createSecretBox("key-number-one-xxxx").seal({ a: 1 });
    expect(() => createSecretBox("key-number-two-xxxx").open(sealed)).toThrow();
    const parts = sealed.split(":");
    parts[3] = `${parts[3].slice(0, -2)}AA`;
    expect(() => createSecretBox("key-number-one-xxxx").open(parts.join(":"))).toThrow();
  });
});
