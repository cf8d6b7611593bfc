import ipaddr from 'ipaddr.js';

/**
 * What the policy says of one IP address. `address` is the canonical spelling (an IPv4-mapped
 * IPv6 address becomes the IPv4 address it stands for), which is the one to connect to, so that
 * the address checked and the address dialled are the same string.
 */
export type AddressVerdict =
  | { allowed: true; address: string; family: 4 | 6 }
  | { allowed: false; address: string; reason: string };

/**
 * Cloud instance metadata and platform services. Most fall in link-local, unique-local or CGNAT
 * space anyway; they are listed so that the refusal names them, and for Azure's WireServer, which
 * sits in public space.
 */
const cloudMetadata = new Map<string, string>([
  ['169.254.169.254', 'AWS, GCP, Azure, Oracle and OpenStack'],
  ['169.254.170.2', 'AWS ECS'],
  ['168.63.129.16', 'Azure WireServer'],
  ['100.100.100.200', 'Alibaba Cloud'],
  ['fd00:ec2::254', 'AWS'],
  ['fd20:ce::254', 'GCP'],
]);

/** ipaddr.js range names, in words for a refusal. Any range other than `unicast` is refused. */
const rangeWords: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  rfc6052: 'a NAT64 address',
  rfc6145: 'an IPv4-translated address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  benchmarking: 'a benchmarking address',
};

/** Global unicast IPv6 (RFC 4291): everything outside it is special or unallocated. */
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Allows only globally routable unicast addresses: refuses loopback, private, link-local, CGNAT,
 * unique-local, unspecified, multicast, broadcast, reserved, translation (NAT64, 6to4, Teredo)
 * and cloud-metadata addresses. Takes any spelling ipaddr.js parses (decimal, octal and hex IPv4
 * included, as the system resolver would read them) and classifies an IPv4-mapped IPv6 address
 * as the IPv4 address it carries.
 */
export function classifyAddress(text: string): AddressVerdict {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return { allowed: false, address: text, reason: 'something that is not an IP address' };
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const address = parsed.toString();
  const metadata = cloudMetadata.get(address);
  if (metadata) return { allowed: false, address, reason: `a cloud metadata address (${metadata})` };
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.zoneId) return { allowed: false, address, reason: 'an interface-scoped address (with a zone)' };
    const range = v6.range();
    if (range !== 'unicast')
      return { allowed: false, address, reason: rangeWords[range] ?? `a special-purpose address (${range})` };
    if (!v6.match(globalUnicast))
      return { allowed: false, address, reason: 'an address that is not globally routable' };
    return { allowed: true, address, family: 6 };
  }
  const range = (parsed as ipaddr.IPv4).range();
  if (range !== 'unicast')
    return { allowed: false, address, reason: rangeWords[range] ?? `a special-purpose address (${range})` };
  return { allowed: true, address, family: 4 };
}
