// Which webhook URLs the service may call. A public instance must not become a way into its own network (SSRF):
// only http and https, and every address the host name resolves to must be public, unless WEBHOOK_ALLOW names the
// host or a range holding the address. Checked when the job is posted (400 webhook_not_allowed) and again before
// every delivery attempt (a name may resolve elsewhere by then).
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { CODE } from '../../contract/error-codes.js';

/** Addresses a webhook may not reach unless allowed: private, loopback, link-local, unique-local and the like. */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

export type Lookup = (host: string) => Promise<string[]>;

/** Every address a name resolves to (A and AAAA). */
export const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class WebhookRefused extends Error {
  constructor(
    readonly code: typeof CODE.bad_webhook | typeof CODE.webhook_not_allowed,
    message: string,
  ) {
    super(message);
  }
}

export class WebhookPolicy {
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();

  /** allow: WEBHOOK_ALLOW's entries, each a host name, an address or a CIDR range. */
  constructor(
    allow: readonly string[],
    private readonly lookup: Lookup = systemLookup,
  ) {
    for (const raw of allow) {
      const e = raw.trim().toLowerCase();
      if (!e) continue;
      const [addr, bitsText] = e.split('/');
      const family = isIP(unbracket(addr));
      if (!family) {
        this.hosts.add(e);
        continue;
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
      this.ranges.addSubnet(unbracket(addr), bits, type);
    }
  }

  /** Resolves the URL's host and checks it; returns the checked URL, or throws WebhookRefused. */
  async check(url: string): Promise<URL> {
    return (await this.resolve(url)).url;
  }

  /**
   * Resolves and checks the URL's host; returns the URL and the checked addresses, which the delivery connects to
   * (pinned-post.ts): a name resolved again at connection time could answer otherwise (DNS rebinding). A host
   * WEBHOOK_ALLOW names is not resolved here (addresses empty: the connection resolves it).
   */
  async resolve(url: string): Promise<{ url: URL; addresses: string[] }> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new WebhookRefused(CODE.bad_webhook, 'webhook.url is not a URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new WebhookRefused(CODE.bad_webhook, 'webhook.url must be http or https');
    if (u.username || u.password)
      throw new WebhookRefused(CODE.bad_webhook, 'webhook.url must not carry credentials (use webhook.secret)');
    const host = unbracket(u.hostname.toLowerCase());
    if (this.hosts.has(host)) return { url: u, addresses: [] };
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.lookup(host);
    } catch {
      throw new WebhookRefused(CODE.bad_webhook, `webhook.url: the host name ${host} does not resolve`);
    }
    if (!addresses.length)
      throw new WebhookRefused(CODE.bad_webhook, `webhook.url: the host name ${host} does not resolve`);
    for (const a of addresses) {
      if (!this.allows(a))
        throw new WebhookRefused(
          CODE.webhook_not_allowed,
          `webhook.url: ${host} resolves to ${a}, a non-public address this service does not call (see WEBHOOK_ALLOW)`,
        );
    }
    return { url: u, addresses };
  }

  /**
   * An address may be called when WEBHOOK_ALLOW holds it, or when it is public and so is every IPv4 address an
   * IPv6 form carries inside it (mapped, compatible, 6to4, NAT64, Teredo, ISATAP reach that IPv4 host).
   */
  private allows(address: string): boolean {
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (this.ranges.check(address, type)) return true;
    if (NOT_PUBLIC.check(address, type)) return false;
    return embeddedIpv4(address).every((v4) => this.ranges.check(v4, 'ipv4') || !NOT_PUBLIC.check(v4, 'ipv4'));
  }
}

/** The 8 16-bit groups of an IPv6 address (with '::' expanded and a trailing dotted quad read), or null. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let a = address.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (quad) {
    const [b0, b1, b2, b3] = quad.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, quad.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, tail] = a.includes('::') ? a.split('::') : [a, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** Every IPv4 address an IPv6 address reaches through a transition form; empty for an address that embeds none. */
export function embeddedIpv4(address: string): string[] {
  const g = ipv6Groups(address);
  if (!g) return [];
  const out: string[] = [];
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, ::/96), ::ffff:0:a.b.c.d (translated)
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) out.push(v4(g[6]!, g[7]!));
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) out.push(v4(g[6]!, g[7]!));
  // 6to4: 2002:AABB:CCDD::/16 carries AA.BB.CC.DD
  if (g[0] === 0x2002) out.push(v4(g[1]!, g[2]!));
  // NAT64: 64:ff9b::/96 and the local-use 64:ff9b:1::/48
  if (g[0] === 0x64 && g[1] === 0xff9b) out.push(v4(g[6]!, g[7]!));
  // Teredo 2001:0::/32: the server's IPv4 in groups 2-3, the client's inverted in groups 6-7
  if (g[0] === 0x2001 && g[1] === 0) out.push(v4(g[2]!, g[3]!), v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff));
  // ISATAP: any prefix with an interface id of 0:5efe or 200:5efe and the IPv4 in groups 6-7
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) out.push(v4(g[6]!, g[7]!));
  return out;
}

function unbracket(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}
