import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { get } from "./client";
import type { AiProvider, Context, DeliveryInterface, Health, Items, Job, Run, RunPage } from "./types";

/** Query keys and fetchers of the app, in one place so that mutations know what to refresh. */

const space = (id: string) => `/api/spaces/${encodeURIComponent(id)}`;

export const keys = {
  context: ["context"] as const,
  jobs: (s: string) => ["jobs", s] as const,
  job: (s: string, id: string) => ["jobs", s, id] as const,
  runs: (s: string) => ["runs", s] as const,
  run: (s: string, id: string) => ["runs", s, "one", id] as const,
  interfaces: (s: string) => ["delivery-interfaces", s] as const,
  providers: (s: string) => ["ai-providers", s] as const,
  health: ["health"] as const,
};

export const useContextQuery = () =>
  useQuery({ queryKey: keys.context, queryFn: () => get<Context>("/api/agent/context"), retry: false });

export const useJobs = (s: string) =>
  useQuery({ queryKey: keys.jobs(s), queryFn: () => get<Items<Job>>(`${space(s)}/jobs`).then((a) => a.items) });

export const useJob = (s: string, id: string | undefined) =>
  useQuery({
    queryKey: keys.job(s, id ?? ""),
    queryFn: () => get<Job>(`${space(s)}/jobs/${id}`),
    enabled: !!id,
  });

export type RunFilters = { jobId?: string; state?: string; trigger?: string; since?: string; until?: string };

export const useRunPage = (s: string, filters: RunFilters, cursor: string | undefined, limit = 25) =>
  useQuery({
    queryKey: [...keys.runs(s), "page", filters, cursor, limit],
    queryFn: () => {
      const query = new URLSearchParams({ limit: String(limit) });
      for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
      if (cursor) query.set("cursor", cursor);
      return get<RunPage>(`${space(s)}/runs?${query}`);
    },
    placeholderData: keepPreviousData,
    // Runs in progress change by themselves.
    refetchInterval: (q) =>
      q.state.data?.items.some((r) => r.state === "queued" || r.state === "running") ? 3000 : false,
  });

/** The last run of a job (the jobs list shows its state and time). */
export const useLastRun = (s: string, jobId: string, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...keys.runs(s), "last", jobId],
    queryFn: () => get<RunPage>(`${space(s)}/runs?jobId=${jobId}&limit=1`).then((page) => page.items[0] ?? null),
  });

export const useRun = (s: string, id: string) =>
  useQuery({
    queryKey: keys.run(s, id),
    queryFn: () => get<Run>(`${space(s)}/runs/${id}`),
    refetchInterval: (q) => (q.state.data?.state === "queued" || q.state.data?.state === "running" ? 2000 : false),
  });

export const useInterfaces = (s: string) =>
  useQuery({
    queryKey: keys.interfaces(s),
    queryFn: () => get<Items<DeliveryInterface>>(`${space(s)}/delivery-interfaces`).then((a) => a.items),
  });

export const useProviders = (s: string) =>
  useQuery({
    queryKey: keys.providers(s),
    queryFn: () => get<Items<AiProvider>>(`${space(s)}/ai-providers`).then((a) => a.items),
  });

/**
 * The health listing; only system users get names and ids, so it is asked only for them. The
 * Health page (`live`) asks again whenever it opens and every 30 s; the jobs list reuses a
 * recent answer.
 */
export const useHealth = (enabled: boolean, live = false) =>
  useQuery({
    queryKey: keys.health,
    queryFn: () => get<Health>("/guest/api/health"),
    enabled,
    retry: false,
    staleTime: 30_000,
    ...(live ? { refetchOnMount: "always" as const, refetchInterval: 30_000 } : {}),
  });

export const spacePath = space;
