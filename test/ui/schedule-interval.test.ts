import { describe, expect, it } from "vitest";
import { fromCron, type Interval, toCron } from "../../ui/components/job-editor/schedule-interval.js";

describe("the editor's simple intervals", () => {
  const cases: [Interval, string][] = [
    [{ unit: "minutes", every: 15 }, "*/15 * * * *"],
    [{ unit: "minutes", every: 1 }, "* * * * *"],
    [{ unit: "hours", every: 2, minute: 30 }, "30 */2 * * *"],
    [{ unit: "hours", every: 1, minute: 0 }, "0 * * * *"],
    [{ unit: "days", time: "07:05" }, "5 7 * * *"],
    [{ unit: "weekdays", time: "09:00" }, "0 9 * * 1-5"],
    [{ unit: "weeks", day: 0, time: "18:30" }, "30 18 * * 0"],
  ];

  it.each(cases)("writes %o as %s and reads it back", (interval, cron) => {
    expect(toCron(interval)).toBe(cron);
    expect(fromCron(cron)).toEqual(interval);
  });

  it("leaves expressions it cannot say simply to the cron field", () => {
    for (const cron of ["0 9 1 * *", "*/7 * * * *", "0 9 * * 1,3", "0 9-17 * * *", "0 9 * * *  extra", "61 9 * * *"]) {
      expect(fromCron(cron)).toBeNull();
    }
  });
});
