/**
 * The one SSRF guard of Mockingbird: which addresses an outbound request (the HTTP proxy and rule
 * callouts) may connect to. Addresses and ranges live in one 128-bit space (IPv4 as
 * IPv4-mapped IPv6), so `169.254.169.254` and `[::ffff:169.254.169.254]` are one address; the
 * embedding forms that reach an IPv4 host (IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`) are
 * folded onto it too. The most specific range that contains an address decides; on a tie the
 * operator's deny beats the operator's allow, which beats the built-in list. No range: allowed.
 *
 * Built-in decision: deny by default everything that is not the public internet. Anyone who reaches an
 * endpoint makes Mockingbird send its proxy or callout request, so its host and network are refused:
 * loopback, private (RFC 1918, IPv6 unique local), shared address space (CGNAT, 100.64.0.0/10),
 * benchmarking (198.18.0.0/15), link-local (where every cloud's metadata service answers), cloud
 * metadata addresses, "this network" (0.0.0.0 reaches the host itself), multicast, broadcast and
 * reserved space. An operator who points endpoints at the team's own services lists them in
 * PROXY_ALLOW (CIDRs); PROXY_DENY adds ranges.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface Cidr {
  /** The network, as a 128-bit number (IPv4 mapped into ::ffff:0:0/96). */
  readonly net: bigint;
  /** Prefix length in the 128-bit space. */
  readonly bits: number;
  /** As written, for messages. */
  readonly text: string;
}

const MAPPED = 0xffffn << 32n;
const NAT64 = 0x0064ff9bn << 96n;
const LOW32 = (1n << 32n) - 1n;

function v4ToBigint(ip: string): bigint {
  return ip.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
}

function v6ToBigint(ip: string): bigint {
  let text = ip;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  // A dotted tail (::ffff:1.2.3.4) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4ToBigint(dotted[1]!);
    text = text.slice(0, -dotted[1]!.length) + `${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/**
 * An address as a 128-bit number, IPv4 and every IPv6 form that embeds an IPv4 host mapped to
 * ::ffff:a.b.c.d; undefined when `ip` is not an IP address.
 */
export function addressNumber(ip: string): bigint | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return MAPPED | v4ToBigint(bare);
  if (!isIPv6(bare)) return undefined;
  const n = v6ToBigint(bare);
  // IPv4-compatible (deprecated ::a.b.c.d, but not :: and ::1) and NAT64 reach the IPv4 host.
  if (n >> 32n === 0n && n > 1n) return MAPPED | n;
  if (n >> 32n === NAT64 >> 32n) return MAPPED | (n & LOW32);
  return n;
}

/** The address as people write it: dotted IPv4 for the mapped range, else IPv6 text. */
export function addressText(n: bigint): string {
  if (n >> 32n === MAPPED >> 32n)
    return [24n, 16n, 8n, 0n].map((s) => ((n >> s) & 0xffn).toString()).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((n >> s) & 0xffffn).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** Parses `a.b.c.d/n`, `x::/n` or a bare address (a single host); throws on anything else. */
export function parseCidr(text: string): Cidr {
  const t = text.trim();
  const slash = t.indexOf('/');
  const addr = slash === -1 ? t : t.slice(0, slash);
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) throw new Error(`"${text}" is not an IP address or CIDR range`);
  const max = v4 ? 32 : 128;
  let len = max;
  if (slash !== -1) {
    const p = t.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) throw new Error(`"${text}" has a bad prefix length`);
    len = Number(p);
  }
  const bits = v4 ? len + 96 : len;
  // An IPv6 range is taken as written (no folding): ::/0 is every address, IPv4 included.
  const n = v4 ? MAPPED | v4ToBigint(addr) : v6ToBigint(addr);
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  return { net: n & mask, bits, text: t };
}

function contains(c: Cidr, n: bigint): boolean {
  const shift = BigInt(128 - c.bits);
  return n >> shift === c.net >> shift;
}

/** The built-in denied ranges, each with the reason a refusal names. */
export const BUILT_IN_DENY: readonly { range: string; reason: string }[] = [
  { range: '0.0.0.0/8', reason: '"this network" (0.0.0.0 reaches the host itself)' },
  { range: '::/128', reason: 'the unspecified address' },
  { range: '127.0.0.0/8', reason: 'loopback (this host)' },
  { range: '::1/128', reason: 'loopback (this host)' },
  { range: '10.0.0.0/8', reason: 'a private network' },
  { range: '172.16.0.0/12', reason: 'a private network' },
  { range: '192.168.0.0/16', reason: 'a private network' },
  { range: 'fc00::/7', reason: 'a private network (IPv6 unique local)' },
  { range: '100.64.0.0/10', reason: 'shared address space (carrier-grade NAT)' },
  { range: '198.18.0.0/15', reason: 'benchmarking space' },
  { range: '169.254.0.0/16', reason: 'link-local, where cloud metadata services answer' },
  { range: 'fe80::/10', reason: 'link-local' },
  { range: 'fd00:ec2::254/128', reason: 'the AWS metadata service' },
  { range: '100.100.100.200/32', reason: 'the Alibaba Cloud metadata service' },
  { range: '168.63.129.16/32', reason: 'the Azure host platform' },
  { range: '224.0.0.0/4', reason: 'multicast' },
  { range: 'ff00::/8', reason: 'multicast' },
  { range: '240.0.0.0/4', reason: 'reserved or broadcast' },
];

interface Entry {
  cidr: Cidr;
  allow: boolean;
  /** Operator deny 2, operator allow 1, built-in 0: the tie-break between equally specific ranges. */
  rank: number;
  reason: string;
}

/** Why an address was refused. */
export interface Refusal {
  address: string;
  range: string;
  reason: string;
}

/** The address policy: built-in denials plus the operator's PROXY_DENY and PROXY_ALLOW. */
export class AddressPolicy {
  private readonly entries: Entry[];

  constructor(opts: { allow?: readonly string[]; deny?: readonly string[] } = {}) {
    this.entries = [
      ...BUILT_IN_DENY.map((d) => ({ cidr: parseCidr(d.range), allow: false, rank: 0, reason: d.reason })),
      ...(opts.allow ?? []).map((r) => ({ cidr: parseCidr(r), allow: true, rank: 1, reason: '' })),
      ...(opts.deny ?? []).map((r) => ({
        cidr: parseCidr(r),
        allow: false,
        rank: 2,
        reason: 'denied by PROXY_DENY',
      })),
    ];
  }

  /** Undefined when `ip` may be connected to, else why not. A string that is no IP address is refused. */
  check(ip: string): Refusal | undefined {
    const n = addressNumber(ip);
    if (n === undefined) return { address: ip, range: '', reason: 'not an IP address' };
    let best: Entry | undefined;
    for (const e of this.entries) {
      if (!contains(e.cidr, n)) continue;
      if (!best || e.cidr.bits > best.cidr.bits || (e.cidr.bits === best.cidr.bits && e.rank > best.rank))
        best = e;
    }
    if (!best || best.allow) return undefined;
    return { address: addressText(n), range: best.cidr.text, reason: best.reason };
  }
}
