/**
 * The fuzz's randomness and its hostile values. One seeded generator drives everything, so a
 * failure reproduces with `FUZZ_SEED=<seed>`; nothing here calls Math.random.
 */

export type Rng = {
  /** A float in [0, 1). */
  next(): number;
  int(maxExclusive: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A fresh generator seeded from this one (a case's own stream of numbers). */
  fork(): Rng;
};

/** mulberry32: small, fast and good enough to spread test cases. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (max) => Math.floor(next() * max),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    fork: () => createRng(Math.floor(next() * 4294967296)),
  };
  return rng;
}

export const MB = 1024 * 1024;

/**
 * Strings that have broken parsers, validators, databases and file systems elsewhere. None of them
 * contains what the stack-trace check looks for (`file://`, `.js:12`, `node_modules`), so an
 * answer that echoes one is not mistaken for a leak.
 */
export const HOSTILE_STRINGS: readonly string[] = [
  "",
  " ",
  "a",
  "../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "....//....//etc/passwd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "/etc/passwd",
  "\u0000",
  "a\u0000b",
  "report.png\u0000.html",
  "\u202eevil\u202c",
  "zero\u200bwidth\u200d",
  "\ufeffbom",
  "😀🎉👩‍👩‍👧‍👦",
  "\ud800",
  "\udfff lone",
  "\u2028\u2029",
  "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f",
  "ｄｅｆａｕｌｔ",
  "' or 1=1 --",
  '"; drop table jobs; --',
  "1; select pg_sleep(10)",
  "{{ 7 * 7 }}",
  "{% include 'secrets' %}",
  "{% for i in (1..100000000) %}x{% endfor %}",
  "{{",
  "{% raw %}",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "file:/etc/passwd",
  "http://127.0.0.1:1/",
  "http://user:pass@example.com/",
  "https://[::1]/x",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text
  "${process.env.SECRET_KEY}",
  "__proto__",
  "constructor",
  "\r\nSet-Cookie: x=y",
  "%s%s%s%n",
  "NaN",
  "-0",
  "1e308",
  "0x10",
  "Infinity",
  "null",
  "true",
  "[object Object]",
  "2024-02-30T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "0000-00-00T00:00:00Z",
  "00000000-0000-0000-0000-000000000000",
  "3F0C1A52-5B7E-4C1E-9A53-0D3F3E1B2C44",
  "a@b",
  '"x y"@example.com',
  "a@[127.0.0.1]",
  "* * * * * *",
  "0 0 31 2 *",
  "Europe/Nowhere",
  "#zzzzzz",
  "rgb(1e308, -1, NaN)",
];

/** JSON number tokens that JSON.stringify cannot write (it turns -0 into 0, 1e999 into null). */
export const RAW_NUMBERS: readonly string[] = [
  "-0",
  "1e999",
  "-1e999",
  "1E+308",
  "5e-324",
  "0.00000000000000000000000000001",
  "123456789012345678901234567890",
  "-9007199254740993",
];

export const NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
];

export function randomUuid(rng: Rng): string {
  const hex = () => rng.int(16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-${rng.pick(["8", "9", "a", "b"])}${part(3)}-${part(12)}`;
}

/** A string as random as its code units: any BMP character, surrogates alone included. */
export function randomUnicode(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += String.fromCharCode(rng.chance(0.5) ? rng.int(128) : rng.int(0x10000));
  return out;
}

export function hostileString(rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.7) return rng.pick(HOSTILE_STRINGS);
  if (roll < 0.85) return randomUnicode(rng, 1 + rng.int(64));
  if (roll < 0.97) return rng.pick(["x", "é", "😀", "\u0000", "{{ a }}"]).repeat(1000 + rng.int(20_000));
  return "y".repeat(MB);
}

/** Any JSON value of the wrong kind for most fields. */
export function hostileValue(rng: Rng): unknown {
  switch (rng.int(8)) {
    case 0:
      return null;
    case 1:
      return rng.pick([true, false]);
    case 2:
      return rng.pick(NUMBERS);
    case 3:
      return [];
    case 4:
      return rng.pick<object>([{}, { "": null }, { constructor: { prototype: { polluted: 1 } } }, { length: -1 }]);
    case 5:
      return [hostileString(rng), null, 1];
    default:
      return hostileString(rng);
  }
}

/** `depth` levels of arrays and objects, as JSON text: JSON.stringify would recurse that deep. */
export function deepJson(rng: Rng, depth: number): string {
  switch (rng.int(3)) {
    case 0:
      return `${"[".repeat(depth)}${"]".repeat(depth)}`;
    case 1:
      return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    default:
      return `${'[{"a":'.repeat(depth)}null${"}]".repeat(depth)}`;
  }
}

/** `depth` nested `if` steps, as JSON text. */
export function deepIfSteps(depth: number): string {
  const open = '{"type":"if","condition":"1 > 0","then":[';
  return `[${open.repeat(depth)}{"type":"wait","ms":1}${"]}".repeat(depth)}]`;
}

/** A long array, as JSON text. */
export function longArray(rng: Rng, length: number): string {
  const item = rng.pick(['{"type":"wait","ms":1}', "1", '""', "null", '{"blocks":[]}']);
  return `[${Array.from({ length }, () => item).join(",")}]`;
}
