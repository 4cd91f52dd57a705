/**
 * Where snapshots and reports are kept: a local folder by default (DATA_DIR/files), an
 * S3-compatible bucket in scale-out. Keys are `runs/<runId>/<name>`; both parts are checked
 * before they reach a path, so a key can never leave the store.
 */
export type FileStore = {
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** The bytes of a file, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  /** Deletes every file whose key starts with `prefix` (a run's folder). */
  deletePrefix(prefix: string): Promise<void>;
};

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Throws unless every segment of the key is a plain file name (no `..`, no slashes inside). */
export function checkKey(key: string): string[] {
  const segments = key.split("/");
  if (segments.length === 0 || segments.some((s) => !SEGMENT.test(s) || s.includes(".."))) {
    throw new Error(`invalid file key: ${JSON.stringify(key)}`);
  }
  return segments;
}

export const runFileKey = (runId: string, name: string) => `runs/${runId}/${name}`;
export const runFolderKey = (runId: string) => `runs/${runId}`;
