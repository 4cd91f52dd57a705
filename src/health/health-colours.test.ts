import { describe, expect, it } from "vitest";
import { byWorstThenName, countColours, interfaceColour, jobColour, worstColour } from "./health-colours.js";

describe("health colours", () => {
  it.each([
    [[], "gray"],
    [["success"], "green"],
    [["success", "skipped", "skipped"], "green"],
    [["skipped"], "green"],
    [["success", "failed"], "yellow"],
    [["partial"], "yellow"],
    [["partial", "failed"], "yellow"],
    [["success", "partial", "skipped"], "yellow"],
    [["failed"], "red"],
    [["failed", "failed", "failed", "failed", "failed"], "red"],
  ] as const)("a job with runs %j is %s", (states, colour) => {
    expect(jobColour([...states])).toBe(colour);
  });

  it.each([
    [0, 0, "gray"],
    [3, 0, "green"],
    [3, 1, "yellow"],
    [3, 3, "red"],
  ])("an interface with %i deliveries, %i failed, is %s", (total, errors, colour) => {
    expect(interfaceColour(total, errors)).toBe(colour);
  });

  it("ranks red > yellow > gray > green; nothing at all is gray", () => {
    expect(worstColour([])).toBe("gray");
    expect(worstColour(["green"])).toBe("green");
    expect(worstColour(["green", "gray"])).toBe("gray");
    expect(worstColour(["gray", "yellow", "green"])).toBe("yellow");
    expect(worstColour(["yellow", "red", "gray"])).toBe("red");
    expect(countColours(["red", "green", "green", "gray"])).toEqual({ green: 2, yellow: 0, red: 1, gray: 1 });
  });

  it("sorts worst first, then by name (case and digits read naturally)", () => {
    const entries = [
      { id: "1", name: "job 10", healthStatus: "green" as const },
      { id: "2", name: "Job 9", healthStatus: "green" as const },
      { id: "3", name: "b", healthStatus: "gray" as const },
      { id: "4", name: "a", healthStatus: "red" as const },
      { id: "5", name: "c", healthStatus: "yellow" as const },
    ];
    expect([...entries].sort(byWorstThenName).map((e) => e.name)).toEqual(["a", "c", "b", "Job 9", "job 10"]);
  });
});
