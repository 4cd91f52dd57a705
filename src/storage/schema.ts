/**
 * Row types of the database, shared by SQLite and PostgreSQL. Both dialects store the same
 * column types so that one set of queries serves both: timestamps are ISO 8601 UTC strings with
 * milliseconds (they sort as text, which keyset paging relies on), booleans are 0/1 integers and
 * structured values are JSON text.
 */
export type Database = {
  users: UserRow;
  sessions: SessionRow;
  spaces: SpaceRow;
  space_members: SpaceMemberRow;
  jobs: JobRow;
  blueprints: BlueprintRow;
  delivery_interfaces: SecretHolderRow & { type: string };
  ai_providers: SecretHolderRow & { vendor: string };
  login_failures: LoginFailureRow;
  settings: SettingRow;
  runs: RunRow;
  deliveries: DeliveryRow;
  observer_keys: ObserverKeyRow;
  audit_log: AuditRow;
};

export type AuditRow = {
  id: string;
  at: string;
  space_id: string | null;
  actor_id: string | null;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  target_name: string;
  /** JSON: {"after": …} on create, {"fields": {name: {from, to}}} on update, {"before": …} on delete. */
  changes: string;
};

export type UserRow = {
  id: string;
  username: string;
  password_hash: string;
  system_role: "system" | "user";
  email: string | null;
  created_at: string;
  updated_at: string;
};

export type SessionRow = {
  /** SHA-256 of the cookie token: a stolen database does not yield live sessions. */
  id: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
};

export type SpaceRow = { id: string; name: string; created_at: string };

export type SpaceMemberRow = { space_id: string; user_id: string; access: "ro" | "rw" | "admin" };

export type JobRow = {
  id: string;
  space_id: string;
  name: string;
  enabled: number;
  cron: string | null;
  /** The whole job body as JSON (steps with their ids, report, deliveries), secrets blanked. */
  body: string;
  /** The job's own secrets (see jobs/job-secrets.ts), sealed with SECRET_KEY; null when none. */
  secrets: string | null;
  created_at: string;
  updated_at: string;
};

export type BlueprintRow = {
  id: string;
  space_id: string;
  name: string;
  body: string;
  created_at: string;
  updated_at: string;
};

export type SecretHolderRow = {
  id: string;
  space_id: string;
  name: string;
  /** Non-secret settings as JSON. */
  config: string;
  /** Secret settings as JSON, encrypted with SECRET_KEY (AES-256-GCM). */
  secrets: string;
  created_at: string;
  updated_at: string;
};

export type LoginFailureRow = { username: string; address: string; at: string };

export type SettingRow = { key: string; value: string };

export type RunRow = {
  id: string;
  space_id: string;
  job_id: string;
  job_name: string;
  trigger: "schedule" | "manual" | "retry" | "test";
  attempt: number;
  /** The first attempt's id, on retries. */
  retry_of: string | null;
  state: "queued" | "running" | "success" | "partial" | "failed" | "skipped";
  queued_at: string;
  /** A queued run is not started before this time (retry delays). */
  not_before: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  /** JSON {message, stepId?} or null. */
  error: string | null;
  variables: string;
  steps: string;
  snapshots: string;
  files: string;
  deliveries: string;
  /** Secret of the run's file links. */
  token: string;
  /** The job body of a test run (unsaved); null for saved jobs, which are read at run time. */
  job_body: string | null;
  /** Which process runs it, and when it last said so (recovery of runs of dead processes). */
  worker: string | null;
  heartbeat_at: string | null;
  scheduled_for: string | null;
};

export type DeliveryRow = {
  id: string;
  run_id: string;
  job_id: string;
  space_id: string;
  interface_id: string;
  type: string;
  state: "sent" | "failed" | "throttled";
  error: string | null;
  /** The receiver's answer status (HTTP) or SMTP reply code, when there was one. */
  status: number | null;
  at: string;
};

export type ObserverKeyRow = {
  id: string;
  name: string;
  /** SHA-256 (hex) of the key: the key itself is shown once, at creation, and never stored. */
  key_hash: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
};
