// Which webhook URLs the service may call. A public instance must not become a way into its own network (SSRF):
// only http and https, and every address the host name resolves to must be public, unless WEBHOOK_ALLOW names the
// host or a range holding the address. Checked when the job is posted (400 webhook_not_allowed) and again before
// every delivery attempt (a name may resolve elsewhere by then).
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';

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
    readonly code: 'bad_webhook' | 'webhook_not_allowed',
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
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new WebhookRefused('bad_webhook', 'webhook.url is not a URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new WebhookRefused('bad_webhook', 'webhook.url must be http or https');
    if (u.username || u.password)
      throw new WebhookRefused('bad_webhook', 'webhook.url must not carry credentials (use webhook.secret)');
    const host = unbracket(u.hostname.toLowerCase());
    if (this.hosts.has(host)) return u;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.lookup(host);
    } catch {
      throw new WebhookRefused('bad_webhook', `webhook.url: the host name ${host} does not resolve`);
    }
    if (!addresses.length)
      throw new WebhookRefused('bad_webhook', `webhook.url: the host name ${host} does not resolve`);
    for (const a of addresses) {
      if (!this.allows(a))
        throw new WebhookRefused(
          'webhook_not_allowed',
          `webhook.url: ${host} resolves to ${a}, a non-public address this service does not call (see WEBHOOK_ALLOW)`,
        );
    }
    return u;
  }

  private allows(address: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    // an IPv4-mapped IPv6 address reaches the IPv4 host: judge that one
    const a = mapped ? mapped[1] : address;
    const type = isIP(a) === 4 ? 'ipv4' : 'ipv6';
    if (this.ranges.check(a, type)) return true;
    return !NOT_PUBLIC.check(a, type) && !(type === 'ipv6' && /^(64:ff9b::|::ffff:)/i.test(a));
  }
}

function unbracket(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}
