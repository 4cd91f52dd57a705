import {
  byWorstThenName,
  countColours,
  type HealthColour,
  interfaceColour,
  jobColour,
  worstColour,
} from "./health-colours.js";
import type { HealthReader } from "./health-queries.js";

/**
 * The health answer of GET /guest/api/health (schema `Health` in the guide): the full listing
 * for system users, and a summary without names or error texts (they can quote captured data)
 * for everyone else.
 */
export type JobHealth = {
  id: string;
  name: string;
  description: string;
  cron: string | null;
  healthStatus: HealthColour;
  recentRuns: { runAt: string; state: string }[];
};

export type InterfaceHealth = {
  id: string;
  name: string;
  type: string;
  healthStatus: HealthColour;
  summary24Hours: {
    totalCount: number;
    errorCount: number;
    errors: { at: string; runId: string; jobId: string; message: string }[];
  };
};

type Counts = Record<HealthColour, number>;

export type FullHealth = {
  status: HealthColour;
  counts: Counts;
  jobs: JobHealth[];
  deliveryInterfaces: InterfaceHealth[];
};

export type HealthSummary = {
  status: HealthColour;
  counts: Counts;
  jobs: { healthStatus: HealthColour }[];
  deliveryInterfaces: { healthStatus: HealthColour }[];
};

/**
 * Every job with its colour, worst first (what the alert monitor compares). Timestamps are
 * passed on as stored: ISO 8601 UTC with milliseconds already (storage/time.ts).
 */
export async function readJobHealth(reader: HealthReader, now = new Date()): Promise<JobHealth[]> {
  const jobs = await reader.jobs(now);
  return jobs
    .map((job) => ({
      id: job.id,
      name: job.name,
      description: job.description,
      cron: job.cron,
      healthStatus: jobColour(job.runs.map((r) => r.state)),
      recentRuns: job.runs.map((r) => ({ runAt: r.finishedAt, state: r.state })),
    }))
    .sort(byWorstThenName);
}

export async function buildHealth(reader: HealthReader, now = new Date()): Promise<FullHealth> {
  const [jobs, interfaces] = await Promise.all([readJobHealth(reader, now), reader.interfaces(now)]);
  const deliveryInterfaces: InterfaceHealth[] = interfaces
    .map((i) => ({
      id: i.id,
      name: i.name,
      type: i.type,
      healthStatus: interfaceColour(i.totalCount, i.errorCount),
      summary24Hours: {
        totalCount: i.totalCount,
        errorCount: i.errorCount,
        errors: i.errors,
      },
    }))
    .sort(byWorstThenName);
  const colours = [...jobs, ...deliveryInterfaces].map((entry) => entry.healthStatus);
  return { status: worstColour(colours), counts: countColours(colours), jobs, deliveryInterfaces };
}

/** What an anonymous caller sees: the same colours, in the same order, without anything named. */
export function summarizeHealth(full: FullHealth): HealthSummary {
  return {
    status: full.status,
    counts: full.counts,
    jobs: full.jobs.map((j) => ({ healthStatus: j.healthStatus })),
    deliveryInterfaces: full.deliveryInterfaces.map((i) => ({ healthStatus: i.healthStatus })),
  };
}
