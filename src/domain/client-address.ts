import ipaddr from 'ipaddr.js';

/**
 * The key a per-address limit counts a client under (issue #28): an IPv4 address as it is, an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as its IPv4 address, and an IPv6 address by its
 * /64 network, since whoever has one IPv6 address usually has the 2^64 addresses of its network.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}

/**
 * DAM_TRUST_PROXY as a hop count: the socket's peer and the `hops - 1` entries nearest it in
 * X-Forwarded-For are proxies; the next entry to the left is the client. Entries further left were
 * written by the client and are never believed.
 */
export function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
