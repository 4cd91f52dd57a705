import { BODY_LIMIT } from "../../src/app.js";
import type { FuzzBody } from "./fuzz-bodies.js";
import { deepJson, type Rng } from "./fuzz-random.js";

/**
 * Bodies broken as a whole: invalid JSON, not an object, the wrong content type, deep nesting,
 * over the size limit, and upload bytes that are not the image they claim to be.
 */

const INVALID_JSON = [
  "{",
  '{"a":}',
  "[1,]",
  "{'name':'x'}",
  "nul",
  "\u0000",
  '{"name":"x"}garbage',
  '{"name":NaN}',
  '{"name":Infinity}',
  '{"name":undefined}',
  '{"name":"\\x41"}',
  '{"name":"unterminated',
  '{"a":1,}',
  "\ufeff{}",
  "{}{}",
  "   ",
  "//",
  '{"a":"\\ud800\\udc00\\ud800"}',
];

const TOP_LEVEL = [
  "null",
  "true",
  "0",
  "-0",
  "1e999",
  '"a string"',
  "[]",
  "[{}]",
  '""',
  '{"__proto__":{"isAdmin":true}}',
];

const WRONG_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/jsonx",
  "APPLICATION/JSON",
  "application/json, text/plain",
  "application/octet-stream",
  "image/png",
  "text/event-stream",
  "application/json; boundary=x; charset=utf-8; q=0.1",
  `application/${"x".repeat(4000)}`,
];

/** A body broken as a whole: not JSON, not a JSON object, the wrong type, or deep and long. */
export function brokenBody(seedText: string, rng: Rng): FuzzBody {
  switch (rng.int(7)) {
    case 0:
      return { payload: rng.pick(INVALID_JSON), contentType: "application/json", note: "invalid JSON" };
    case 1:
      return { payload: rng.pick(TOP_LEVEL), contentType: "application/json", note: "not an object" };
    case 2: {
      const contentType = rng.pick(WRONG_TYPES);
      return { payload: seedText, contentType, note: `content-type ${contentType.slice(0, 60)}` };
    }
    case 3:
      return { payload: "", contentType: rng.pick(["application/json", "text/plain"]), note: "empty body" };
    case 4:
      return { payload: seedText, contentType: undefined, note: "no content-type" };
    case 5: {
      const depth = rng.pick([10_000, 100_000]);
      return { payload: deepJson(rng, depth), contentType: "application/json", note: `nested ${depth} deep` };
    }
    default: {
      // Duplicate keys: the last one wins in JSON.parse, and it is the hostile one.
      const text = seedText.startsWith("{") ? `{"name":"ok",${seedText.slice(1, -1)},"name":{"$gt":""}}` : seedText;
      return { payload: text, contentType: "application/json", note: "duplicate keys" };
    }
  }
}

/** A body over the server's limit: always 413, whether its size is announced or found while reading. */
export function oversizedBody(rng: Rng, chunked: boolean): FuzzBody {
  const payload = `{"name":"${"o".repeat(BODY_LIMIT + 1 + rng.int(64 * 1024))}"}`;
  return {
    payload,
    contentType: "application/json",
    note: `over the body limit${chunked ? ", chunked" : ""}`,
    chunked,
    expectStatus: 413,
  };
}

export const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** Raw upload bodies: images that are not, and bytes that claim to be images. */
export function uploadBody(rng: Rng): FuzzBody {
  const random = (n: number) => Buffer.from(Array.from({ length: n }, () => rng.int(256)));
  const options: (() => FuzzBody)[] = [
    () => ({ payload: PNG_1PX, contentType: "image/png", note: "a real PNG" }),
    () => ({ payload: random(1 + rng.int(4096)), contentType: "image/png", note: "random bytes as PNG" }),
    () => ({
      payload: Buffer.concat([PNG_1PX.subarray(0, 16), random(64)]),
      contentType: "image/png",
      note: "PNG head only",
    }),
    () => ({ payload: Buffer.from("GIF89a"), contentType: "image/gif", note: "GIF magic only" }),
    () => ({
      payload: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      contentType: "image/svg+xml",
      note: "SVG with a script",
    }),
    () => ({ payload: Buffer.alloc(0), contentType: "image/webp", note: "empty image" }),
    () => ({ payload: random(256), contentType: "application/octet-stream", note: "octet-stream" }),
    () => ({ payload: random(256), contentType: "image/../../x", note: "odd image type" }),
    () => ({ payload: '{"a":1}', contentType: "application/json", note: "JSON to the upload route" }),
  ];
  return rng.pick(options)();
}
