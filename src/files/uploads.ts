/**
 * Images that people upload for report `image` blocks. Kept in the file store under
 * `uploads/<space>/<id>`; an upload is an image by its bytes (PNG, JPEG, GIF, WebP), never by the
 * name or type the browser claims, and at most 20 MB.
 */

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export const uploadKey = (space: string, id: string) => `uploads/${space}/${id}`;

export type ImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** The image type of `data` by its first bytes, or undefined when it is none of the accepted. */
export function sniffImageType(data: Buffer): ImageType | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return "image/png";
  }
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return "image/jpeg";
  const head = data.subarray(0, 12).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}
