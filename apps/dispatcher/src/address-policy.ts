import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach unless private targets are allowed: loopback, private, shared,
 * link-local (cloud metadata lives there), multicast, reserved and documentation ranges, in IPv4 and IPv6.
 * IPv4 embedded in IPv6 (mapped ::ffff:a.b.c.d, SIIT ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) is checked as the IPv4 address it carries. Local-use NAT64 (64:ff9b:1::/48, RFC 8215) may
 * embed anything anywhere in its suffix, so the whole prefix is refused.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['64:ff9b:1::', 48],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address an IPv6 address carries, if it is one of the embedding forms. */
function embeddedIpv4(ip: string): string | undefined {
  const groups = expandIpv6(ip.toLowerCase());
  if (!groups) return undefined;
  const toV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeros(5) && groups[5] === 0xffff) return toV4(groups[6], groups[7]); // ::ffff:0:0/96 mapped
  if (zeros(4) && groups[4] === 0xffff && groups[5] === 0) return toV4(groups[6], groups[7]); // ::ffff:0:0:0/96 SIIT
  if (zeros(6) && (groups[6] || groups[7])) return toV4(groups[6], groups[7]); // ::a.b.c.d compatible (deprecated)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return toV4(groups[6], groups[7]); // NAT64
  if (groups[0] === 0x2002) return toV4(groups[1], groups[2]); // 6to4
  return undefined;
}

function expandIpv6(text: string): number[] | undefined {
  // a trailing dotted quad is the last two groups
  const quad = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad && quad.slice(2).some((o) => Number(o) > 255)) return undefined;
  const ip = quad ? `${quad[1]}${((+quad[2] << 8) | +quad[3]).toString(16)}:${((+quad[4] << 8) | +quad[5]).toString(16)}` : text;
  const [head, tail, ...rest] = ip.split('::');
  if (rest.length) return undefined;
  const parse = (s: string) => (s ? s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const all = [...h, ...Array(Math.max(fill, 0)).fill(0), ...t];
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : undefined;
}

/** True when the address is a public unicast address a webhook may be delivered to. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').split('%')[0];
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return isPublicAddress(v4);
    return !blocked.check(bare, 'ipv6');
  }
  return false;
}
