import { BlockList, isIP } from 'node:net';

/**
 * Which addresses the SSRF guard (`webhook-target.ts`) refuses: loopback, private, link-local,
 * multicast and the other non-public ranges, IPv4 and IPv6. An IPv6 address that carries an IPv4
 * address (`EMBEDDED_IPV4`) is judged by that IPv4 address, whatever its spelling: a packet to it ends
 * up at the IPv4 address (through the host's dual stack, a NAT64 gateway, a 6to4 or Teredo relay).
 * Node's `BlockList` maps only `::ffff:a.b.c.d` onto IPv4 rules, so the others are read here, from
 * one table.
 */

const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blockedV4.addSubnet(net, prefix, 'ipv4');
}

/** IPv6 ranges refused for themselves (those that carry an IPv4 address are in EMBEDDED_IPV4). */
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

/** Where an IPv4 address sits in an IPv6 address: its 32 bits in spans of [first bit, bit count], then XOR'd with `xor`. */
interface Placement {
  spans: readonly (readonly [number, number])[];
  xor?: number;
}
const at = (...spans: [number, number][]): Placement => ({ spans });
const LOW_32 = at([96, 32]);

/**
 * Every IPv6 range that carries an IPv4 address, and where. An address of a range is private when any
 * IPv4 address it may carry is (a NAT64 local-use prefix may have any RFC 6052 length, so each layout
 * is read; a Teredo address names a server and a client).
 */
const EMBEDDED_IPV4: readonly { net: string; prefix: number; placements: readonly Placement[] }[] = [
  { net: '::ffff:0:0', prefix: 96, placements: [LOW_32] }, // IPv4-mapped (RFC 4291)
  { net: '::ffff:0:0:0', prefix: 96, placements: [LOW_32] }, // IPv4-translated (RFC 2765)
  { net: '::', prefix: 96, placements: [LOW_32] }, // IPv4-compatible (deprecated); :: and ::1 are 0.0.0.0 and 0.0.0.1
  { net: '64:ff9b::', prefix: 96, placements: [LOW_32] }, // NAT64, the well-known prefix (RFC 6052)
  {
    // NAT64, local-use prefixes (RFC 8215) of length 48, 56, 64 or 96 (RFC 6052: bits 64..71 are skipped)
    net: '64:ff9b:1::',
    prefix: 48,
    placements: [at([48, 16], [72, 16]), at([56, 8], [72, 24]), at([72, 32]), LOW_32],
  },
  { net: '2002::', prefix: 16, placements: [at([16, 32])] }, // 6to4 (RFC 3056)
  { net: '2001::', prefix: 32, placements: [at([32, 32]), { ...at([96, 32]), xor: 0xffffffff }] }, // Teredo (RFC 4380): server, client
];

/** An IPv6 address (as `isIP` accepts it, a zone index included) as a 128-bit number. */
function ipv6Value(address: string): bigint {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

const bitsOf = (value: bigint, first: number, count: number): number => Number((value >> BigInt(128 - first - count)) & ((1n << BigInt(count)) - 1n));

const EMBEDDINGS = EMBEDDED_IPV4.map(({ net, prefix, placements }) => ({
  prefix,
  net: ipv6Value(net) >> BigInt(128 - prefix),
  placements,
}));

const dottedQuad = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');

/** The IPv4 addresses an IPv6 address carries (its EMBEDDED_IPV4 range's), or null when it carries none. */
export function embeddedIpv4(address: string): string[] | null {
  const value = ipv6Value(address);
  const range = EMBEDDINGS.find(({ prefix, net }) => value >> BigInt(128 - prefix) === net);
  if (!range) return null;
  return range.placements.map(({ spans, xor = 0 }) =>
    dottedQuad((spans.reduce((v4, [first, count]) => (v4 << count) | bitsOf(value, first, count), 0) ^ xor) >>> 0),
  );
}

/** True for loopback, private, link-local, multicast and other non-public addresses; an IPv6 address carrying an IPv4 one is judged by it. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, 'ipv4');
  if (family === 6) {
    const carried = embeddedIpv4(address);
    if (carried) return carried.some((v4) => blockedV4.check(v4, 'ipv4'));
    return blockedV6.check(address.split('%')[0]!, 'ipv6');
  }
  return true;
}
