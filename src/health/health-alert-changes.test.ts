import { describe, expect, it } from "vitest";
import { type AlertState, alertMessage, applyCheck } from "./health-alert-changes.js";

const state = (colours: AlertState["colours"], pending: AlertState["pending"] = {}): AlertState => ({
  colours,
  pending,
  lastCheckAt: "2026-01-01T00:00:00.000Z",
  lastSentAt: null,
});

describe("alert changes", () => {
  it("records the first check as a baseline, without changes", () => {
    const result = applyCheck(null, [{ id: "a", name: "A", healthStatus: "red" }]);
    expect(result).toMatchObject({ baseline: true, changes: [], state: { colours: { a: "red" }, pending: {} } });
  });

  it("reports colour changes; new gray jobs and deleted jobs are not changes", () => {
    const { state: next, changes } = applyCheck(state({ a: "green", b: "green", gone: "red" }), [
      { id: "a", name: "A", healthStatus: "red" },
      { id: "b", name: "B", healthStatus: "green" },
      { id: "new-gray", name: "N", healthStatus: "gray" },
      { id: "new-red", name: "R", healthStatus: "red" },
    ]);
    expect(changes).toEqual([
      { id: "a", name: "A", from: "green", to: "red" },
      { id: "new-red", name: "R", from: "gray", to: "red" },
    ]);
    expect(next.colours).toEqual({ a: "red", b: "green", "new-gray": "gray", "new-red": "red" });
    expect(next.pending).toEqual({ a: "green", "new-red": "gray" });
  });

  it("keeps the original colour of a pending change, and drops a change that went back", () => {
    const { changes, state: next } = applyCheck(state({ a: "red", b: "green" }, { a: "green", b: "red" }), [
      { id: "a", name: "A", healthStatus: "yellow" },
      { id: "b", name: "B", healthStatus: "red" },
    ]);
    expect(changes).toEqual([{ id: "a", name: "A", from: "green", to: "yellow" }]);
    expect(next.pending).toEqual({ a: "green" });
  });

  it("writes one plain-text message with a line and a link per job", () => {
    const message = alertMessage(
      [
        { id: "a1", name: "Orders", from: "green", to: "red" },
        { id: "b2", name: "Stock", from: "red", to: "green" },
      ],
      "https://reports.example.com",
    );
    expect(message.subject).toBe("Pagewright health: 2 jobs changed");
    expect(message.text).toContain("- Orders: green → red\n  https://reports.example.com/jobs/a1");
    expect(message.text).toContain("- Stock: red → green\n  https://reports.example.com/jobs/b2");
    expect(alertMessage([{ id: "x", name: "X", from: "gray", to: "red" }], "http://h").subject).toBe(
      "Pagewright health: 1 job changed",
    );
  });
});
