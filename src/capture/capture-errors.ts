/** A `break` step: the run ends on purpose, state skipped. */
export class BreakSignal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A step failed for a reason the step itself found (no number, HTTP 500 …). */
export class StepError extends Error {}
