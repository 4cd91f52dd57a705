import { isIPv4, isIPv6 } from "node:net";

/**
 * Which hosts the report renderer may fetch from. A report is written by a job's author but
 * rendered on the server, so an `image` URL is a request the server makes on their behalf: it
 * must not reach the server's own loopback, the private network it sits in, or a cloud
 * metadata address (169.254.169.254) unless the operator listed the host in
 * REPORT_ALLOWED_HOSTS.
 */

/** Why an address is refused (`loopback`, `private`, …), or null for a public address. */
export function classifyAddress(address: string): string | null {
  if (isIPv4(address)) return classifyIPv4(ipv4Number(address));
  if (isIPv6(address)) return classifyIPv6(ipv6Groups(address));
  return "unknown";
}

/** IPv4 ranges that are not the public internet: [first address, prefix length, reason]. */
const IPV4_RANGES: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT, private to the provider's network
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"], // includes the broadcast address 255.255.255.255
];

const IPV4_BLOCKS = IPV4_RANGES.map(([first, prefix, reason]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { network: (ipv4Number(first) & mask) >>> 0, mask, reason };
});

function ipv4Number(address: string): number {
  return address.split(".").reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

function classifyIPv4(n: number): string | null {
  for (const block of IPV4_BLOCKS) if ((n & block.mask) >>> 0 === block.network) return block.reason;
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a zone such as `%eth0` is ignored). */
function ipv6Groups(address: string): number[] {
  let text = address.split("%")[0].toLowerCase();
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups.
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = ipv4Number(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups].map((g) => Number.parseInt(g, 16));
}

function classifyIPv6(g: number[]): string | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embeddedIPv4 = (high: number, low: number) => classifyIPv4(((high << 16) | low) >>> 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // Addresses that carry an IPv4 address are judged by it: mapped (::ffff:a.b.c.d),
  // compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
  if (zeroUpTo(5) && g[5] === 0xffff) return embeddedIPv4(g[6], g[7]);
  if (zeroUpTo(6)) return embeddedIPv4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embeddedIPv4(g[6], g[7]);
  if (g[0] === 0x2002) return embeddedIPv4(g[1], g[2]);
  if ((g[0] & 0xfe00) === 0xfc00) return "private";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated but still routed inside sites
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return null;
}

/** The host part of a URL without IPv6 brackets, lower-case: `[::1]` → `::1`. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/**
 * Whether REPORT_ALLOWED_HOSTS lists this URL's host: an entry is a host name or address
 * (`intranet.example`, `10.0.0.5`, `::1` or `[::1]`), optionally with a port to allow one
 * port only (`127.0.0.1:8080`).
 */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const hostname = bareHostname(url);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return allowedHosts.some((entry) => {
    const normalized = entry.trim().toLowerCase();
    if (!normalized) return false;
    const withPort = normalized.match(/^(\[[^\]]+\]|[^:]+):(\d+)$/);
    if (withPort) return withPort[1].replace(/^\[|\]$/g, "") === hostname && withPort[2] === port;
    return normalized.replace(/^\[|\]$/g, "") === hostname;
  });
}
