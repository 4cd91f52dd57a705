import crypto from "node:crypto";
import type { JobBodyInput } from "../../src/schemas/job.js";
import type { Client } from "../helpers/client.js";

/**
 * A burst of job writes from many clients at once, each write recorded with its answer, so that
 * after a crash a test can tell what the server promised (answered 2xx) from what it never did.
 *
 * Every lane creates a job (version 0) and replaces it (versions 1…) one request at a time, then
 * starts the next job. Each version writes its number into several fields (name, description,
 * a step's URL, a snapshot's name, retry attempts): a stored job whose fields disagree was
 * half-written.
 */
export type TrackedJob = {
  id: string;
  lane: number;
  /** Versions sent, in order (0 = the create). */
  sent: number[];
  /** Versions whose request was answered 201 / 200 before the kill. */
  acked: number[];
};

export type WriteBurst = {
  jobs: TrackedJob[];
  /** Statuses of answered writes other than 201 / 200 (none expected). */
  refused: { status: number; text: string }[];
  readonly acked: number;
  /** Stops sending; requests in flight are left to their fate. */
  stop(): void;
  /** Resolves when every lane has stopped (after `stop`, or after the server died). */
  done: Promise<void>;
};

const VERSIONS_PER_JOB = 4;

export function versionBody(id: string, lane: number, version: number, siteUrl: string): JobBodyInput {
  return {
    id,
    name: `lane ${lane} job ${id.slice(0, 8)} v${version}`,
    description: `version ${version} of a job written during a crash`,
    cron: null,
    retry: { attempts: version % 3, delayMinutes: 0 },
    capture: {
      steps: [
        { type: "navigate", url: `${siteUrl}/table?version=${version}` },
        { type: "snapshot", as: `shot_v${version}` },
      ],
    },
  };
}

/**
 * The version a stored job holds, when all its fields agree on one; undefined for a body that is
 * not one whole version.
 */
// biome-ignore lint/suspicious/noExplicitAny: a stored job is read field by field
export function wholeVersionOf(job: any, siteUrl: string): number | undefined {
  const version = Number(/ v(\d+)$/.exec(job?.name ?? "")?.[1]);
  if (!Number.isInteger(version)) return undefined;
  const lane = Number(/^lane (\d+) /.exec(job.name)?.[1]);
  const expected = versionBody(job.id, lane, version, siteUrl);
  const same =
    job.description === expected.description &&
    job.cron === null &&
    job.retry?.attempts === expected.retry?.attempts &&
    stepKeys(job.capture?.steps) === stepKeys(expected.capture.steps);
  return same ? version : undefined;
}

/** What tells one version's steps from another's: each step's type with its URL or name. */
const stepKeys = (steps: unknown) =>
  JSON.stringify(
    (steps as { type: string; url?: string; as?: string }[] | undefined)?.map((s) => [s.type, s.url ?? s.as]),
  );

export function startWriteBurst(client: Client, siteUrl: string, lanes: number): WriteBurst {
  const jobs: TrackedJob[] = [];
  const refused: { status: number; text: string }[] = [];
  let acked = 0;
  let stopped = false;

  const lane = async (index: number) => {
    // Any error (connection reset by the kill) ends the lane: its last request's fate is unknown.
    try {
      while (!stopped) {
        const job: TrackedJob = { id: crypto.randomUUID(), lane: index, sent: [], acked: [] };
        jobs.push(job);
        for (let version = 0; version <= VERSIONS_PER_JOB && !stopped; version++) {
          const body = versionBody(job.id, index, version, siteUrl);
          job.sent.push(version);
          const answer =
            version === 0
              ? await client.post("/api/spaces/default/jobs", body)
              : await client.put(`/api/spaces/default/jobs/${job.id}`, body);
          if (answer.status === (version === 0 ? 201 : 200)) {
            job.acked.push(version);
            acked++;
          } else {
            refused.push({ status: answer.status, text: answer.text });
            return;
          }
        }
      }
    } catch {
      // the server went away mid-request
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, (_, i) => lane(i))).then(() => undefined);
  return {
    jobs,
    refused,
    get acked() {
      return acked;
    },
    stop() {
      stopped = true;
    },
    done,
  };
}
