import net from "node:net";

/**
 * METRICS_ALLOW: client addresses that may read /metrics without a key, as IPs or CIDRs
 * (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`). The address checked is `request.ip`, which is
 * the proxy's client address only for proxies listed in TRUSTED_PROXIES (a forwarded header from
 * anyone else is not believed). An IPv4 client seen through an IPv6 socket (`::ffff:10.1.2.3`) is
 * matched as its IPv4 address.
 */
export type AllowedAddresses = { readonly empty: boolean; allows(address: string | undefined): boolean };

/** Null when the entry is not an IP or a CIDR; config.ts refuses such a value at start. */
function parseEntry(entry: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [address, prefixText, extra] = entry.split("/");
  const version = net.isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

export const isAddressOrCidr = (entry: string) => parseEntry(entry) !== null;

export function createAllowedAddresses(entries: string[]): AllowedAddresses {
  const list = new net.BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`METRICS_ALLOW: ${JSON.stringify(entry)} is not an IP address or a CIDR`);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return {
    empty: entries.length === 0,
    allows(address) {
      if (!address || entries.length === 0) return false;
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
      const plain = mapped ?? address;
      const version = net.isIP(plain);
      if (version === 0) return false;
      return list.check(plain, version === 4 ? "ipv4" : "ipv6");
    },
  };
}
