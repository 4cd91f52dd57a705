import {
  deepIfSteps,
  deepJson,
  hostileString,
  hostileValue,
  longArray,
  MB,
  NUMBERS,
  RAW_NUMBERS,
  type Rng,
  randomUnicode,
} from "./fuzz-random.js";

/**
 * Request bodies made from a valid seed of each body: one string field tainted, or the seed
 * mutated at one to three field paths (wrong types, fields left out or added, huge strings, deep
 * nesting, long arrays, numbers JSON.stringify cannot write).
 */

export type FuzzBody = {
  payload: string | Buffer;
  /** undefined: no content-type header. */
  contentType?: string;
  note: string;
  /** Sent without a content-length, in chunks: the server finds the size while reading. */
  chunked?: boolean;
  /** The one answer allowed (413 for a body over the limit). */
  expectStatus?: number;
};

/**
 * JSON text with parts JSON.stringify cannot write: deep nesting (it would recurse), `-0`,
 * `1e999`, a `__proto__` key. Each raw part stands in the value as a token string until the end.
 */
export class RawJson {
  private readonly raws: string[] = [];

  token(text: string): string {
    this.raws.push(text);
    return `\u0000RAW${this.raws.length - 1}\u0000`;
  }

  stringify(value: unknown): string {
    let text = JSON.stringify(value) ?? "null";
    this.raws.forEach((raw, i) => {
      text = text.split(`"\\u0000RAW${i}\\u0000"`).join(raw);
    });
    return text;
  }
}

type Path = (string | number)[];

/** Every field path of a value (objects and arrays), the root included, at most `max` deep. */
export function fieldPaths(value: unknown, max = 12): Path[] {
  const out: Path[] = [[]];
  const walk = (node: unknown, path: Path) => {
    if (path.length >= max || typeof node !== "object" || node === null) return;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const child = (node as Record<string | number, unknown>)[key];
      out.push([...path, key]);
      walk(child, [...path, key]);
    }
  };
  walk(value, []);
  return out;
}

export const EXTRA_KEYS = ["constructor", "", "$where", "toString", "a.b", "😀", "x".repeat(5000), "hasOwnProperty"];

/**
 * Characters that pass most field rules yet trouble what lies behind them: NUL (PostgreSQL text
 * refuses it), bidi overrides, lone surrogates, line breaks, quotes.
 */
const TAINTS = [
  "\u0000",
  "\u0000",
  "\u0000",
  "\u202e",
  "\ud800",
  "\udc00x",
  "😀",
  "\u200b",
  "\r\n",
  "'",
  '"',
  "\\",
  "%00",
  "\ufeff",
];

/** Paths of the string leaves: a taint there keeps the body otherwise valid, so it reaches storage. */
const stringPaths = (value: unknown) =>
  fieldPaths(value).filter((path) => {
    const leaf = path.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], value);
    return typeof leaf === "string" && !leaf.startsWith("\u0000RAW");
  });

/** One mutation of `root` (a deep copy) at a random field path; answers what it did. */
function mutateOnce(root: { value: unknown }, rng: Rng, raw: RawJson): string {
  const strings = stringPaths(root.value);
  const tainting = strings.length > 0 && rng.chance(0.35);
  const path = rng.pick(tainting ? strings : fieldPaths(root.value));
  const parentPath = path.slice(0, -1);
  const key = path[path.length - 1];
  const parent = parentPath.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], root.value);
  const holder = (path.length === 0 ? root : parent) as Record<string | number, unknown>;
  const slot = path.length === 0 ? "value" : key;
  const at = `/${path.join("/")}`;
  const set = (value: unknown) => {
    holder[slot] = value;
  };
  if (tainting) {
    const text = String(holder[slot]);
    const taint = rng.pick(TAINTS);
    const at2 = rng.int(text.length + 1);
    set(rng.chance(0.5) ? `${text}${taint}` : `${text.slice(0, at2)}${taint}${text.slice(at2)}`);
    return `${JSON.stringify(taint)} in the string at ${at}`;
  }
  switch (rng.int(11)) {
    case 0:
      set(hostileValue(rng));
      return `wrong type at ${at}`;
    case 1:
      if (Array.isArray(holder)) holder.splice(slot as number, 1);
      else if (path.length > 0) delete holder[slot];
      else set(undefined);
      return `removed ${at}`;
    case 2:
      set(null);
      return `null at ${at}`;
    case 3: {
      const target = holder[slot];
      const object =
        typeof target === "object" && target !== null && !Array.isArray(target)
          ? (target as Record<string, unknown>)
          : undefined;
      if (!object) {
        set(hostileString(rng));
        return `string at ${at}`;
      }
      if (rng.chance(0.3)) {
        // A `__proto__` key can only be written as text: assigning it would set the prototype.
        Object.defineProperty(object, "__proto__", {
          value: { polluted: true, isAdmin: true },
          enumerable: true,
          configurable: true,
          writable: true,
        });
        return `__proto__ key in ${at}`;
      }
      const extra = rng.chance(0.3) ? randomUnicode(rng, 8) : rng.pick(EXTRA_KEYS);
      object[extra] = hostileValue(rng);
      return `extra field in ${at}`;
    }
    case 4:
      set(rng.chance(0.3) ? "y".repeat(MB) : "z".repeat(64 * 1024 + rng.int(300_000)));
      return `huge string at ${at}`;
    case 5:
      set(raw.token(deepJson(rng, rng.chance(0.5) ? 10_000 : 1000)));
      return `deep nesting at ${at}`;
    case 6:
      set(raw.token(longArray(rng, rng.pick([501, 5000, 100_000]))));
      return `long array at ${at}`;
    case 7:
      set(raw.token(rng.pick(RAW_NUMBERS)));
      return `raw number at ${at}`;
    case 8:
      set(rng.pick(NUMBERS));
      return `number at ${at}`;
    case 9:
      set(rng.chance(0.5) ? raw.token(deepIfSteps(rng.pick([9, 100, 10_000]))) : [hostileValue(rng)]);
      return `steps-like array at ${at}`;
    default:
      set(hostileString(rng));
      return `hostile string at ${at}`;
  }
}

/**
 * The seed with one string field tainted and nothing else changed: a body that passes
 * validation and carries the taint into storage, templates and logs. NUL is the likeliest taint.
 */
export function taintedSeed(seed: unknown, rng: Rng): { text: string; note: string } {
  const value = structuredClone(seed);
  const strings = stringPaths(value);
  if (strings.length === 0) return { text: JSON.stringify(value), note: "seed without strings" };
  const path = rng.pick(strings);
  const holder = path.slice(0, -1).reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], value);
  const key = path[path.length - 1];
  const text = String((holder as Record<string | number, unknown>)[key]);
  const taint = rng.chance(0.4) ? "\u0000" : rng.pick(TAINTS);
  const at = rng.int(text.length + 1);
  (holder as Record<string | number, unknown>)[key] = `${text.slice(0, at)}${taint}${text.slice(at)}`;
  return { text: JSON.stringify(value), note: `tainted: ${JSON.stringify(taint)} in /${path.join("/")}` };
}

/** The seed with 1 to 3 mutations, as JSON text. */
export function mutatedSeed(seed: unknown, rng: Rng): { text: string; note: string } {
  const root = { value: structuredClone(seed) };
  const raw = new RawJson();
  const notes: string[] = [];
  const count = rng.chance(0.6) ? 1 : 2 + rng.int(2);
  for (let i = 0; i < count; i++) notes.push(mutateOnce(root, rng, raw));
  return { text: raw.stringify(root.value), note: `mutated: ${notes.join("; ")}` };
}
