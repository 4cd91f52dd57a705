import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Encrypts stored secrets (interface passwords, API keys) with AES-256-GCM under a key derived
 * from SECRET_KEY. A stored value is `v1:<iv>:<tag>:<ciphertext>` in base64url.
 */
export type SecretBox = {
  seal(value: unknown): string;
  open<T = unknown>(sealed: string): T;
};

export function createSecretBox(secretKey: string): SecretBox {
  const key = crypto.createHash("sha256").update(`pagewright:${secretKey}`).digest();
  return {
    seal(value) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(":");
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split(":");
      if (version !== "v1") throw new Error("unknown secret format");
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      const plain = Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]);
      return JSON.parse(plain.toString("utf8"));
    },
  };
}

/**
 * SECRET_KEY from the environment, or the one generated into DATA_DIR/secret.key on the first
 * start (readable by the owner only). `generated` is true when this call wrote it.
 */
export function resolveSecretKey(
  configured: string | undefined,
  dataDir: string,
): { key: string; generated: boolean; file?: string } {
  if (configured) return { key: configured, generated: false };
  const file = path.join(dataDir, "secret.key");
  if (fs.existsSync(file)) return { key: fs.readFileSync(file, "utf8").trim(), generated: false, file };
  fs.mkdirSync(dataDir, { recursive: true });
  const key = crypto.randomBytes(32).toString("base64url");
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  return { key, generated: true, file };
}
