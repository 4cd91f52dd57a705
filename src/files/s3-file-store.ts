import type { S3Client } from "@aws-sdk/client-s3";
import type { Config } from "../config/config.js";
import { checkKey, type FileStore } from "./file-store.js";

/** `s3://bucket/some/prefix` → the bucket and the key prefix ("some/prefix/", or ""). */
export function parseFilesUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match) throw new Error(`FILES_URL is not an s3://bucket/prefix URL: ${url}`);
  const prefix = match[2].replace(/^\/+|\/+$/g, "");
  return { bucket: match[1], prefix: prefix ? `${prefix}/` : "" };
}

/**
 * Files in an S3-compatible bucket (scale-out: every web and worker process sees the same files).
 * Keys are checked as the local store checks them, then put under the prefix of FILES_URL.
 */
export function createS3FileStore(filesUrl: string, s3: Config["s3"]): FileStore {
  const { bucket, prefix } = parseFilesUrl(filesUrl);
  // The SDK is loaded on first use: the embedded mode never pays for it.
  let loaded: Promise<{ sdk: typeof import("@aws-sdk/client-s3"); client: S3Client }> | undefined;
  const connect = () => {
    loaded ??= import("@aws-sdk/client-s3").then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: s3.forcePathStyle,
        credentials:
          s3.accessKeyId && s3.secretAccessKey
            ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
            : undefined,
      }),
    }));
    return loaded;
  };
  const objectKey = (key: string) => prefix + checkKey(key).join("/");
  return {
    async put(key, data, contentType) {
      const { sdk, client } = await connect();
      await client.send(
        new sdk.PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: data, ContentType: contentType }),
      );
    },
    async get(key) {
      const { sdk, client } = await connect();
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return answer.Body ? Buffer.from(await answer.Body.transformToByteArray()) : undefined;
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === "NoSuchKey" || name === "NotFound") return undefined;
        throw error;
      }
    },
    async deletePrefix(folder) {
      const { sdk, client } = await connect();
      const start = `${objectKey(folder)}/`;
      let token: string | undefined;
      do {
        const page = await client.send(
          new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: start, ContinuationToken: token }),
        );
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        // One request per object: DeleteObjects needs a Content-MD5 that some S3-compatible stores reject.
        for (const item of keys) await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: item.Key }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}
