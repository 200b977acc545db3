import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outside fetch may connect to (issue #13): public unicast only. ipaddr.js
 * names the special range an address falls in (`range()`); anything but `unicast` is refused:
 * loopback, private (RFC 1918), link-local (169.254.0.0/16, where cloud metadata services
 * answer; fe80::/10), CGNAT 100.64.0.0/10, unspecified, broadcast, multicast, reserved and
 * documentation ranges, unique-local fc00::/7, site-local, discard, benchmarking, ORCHID, ...
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, SIIT ::ffff:0:a.b.c.d,
 * NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are judged by the IPv4 address they
 * lead to, so `::ffff:127.0.0.1` is loopback. The deprecated IPv4-compatible form ::a.b.c.d,
 * which ipaddr.js counts as unicast, is refused outright: no public host is reached that way.
 */

/** Why `address` may not be connected to, or null when it may. An unparsable address is refused. */
export function refusedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv4') return ipv4Refusal(parsed as ipaddr.IPv4);
  return ipv6Refusal(parsed as ipaddr.IPv6);
}

function ipv4Refusal(v4: ipaddr.IPv4): string | null {
  const range = v4.range();
  return range === 'unicast' ? null : range;
}

function ipv6Refusal(v6: ipaddr.IPv6): string | null {
  const range = v6.range();
  const embedded = embeddedIpv4(v6, range);
  if (embedded) {
    for (const v4 of embedded) {
      const refusal = ipv4Refusal(v4);
      if (refusal) return `${refusal} (${range} form)`;
    }
    return null;
  }
  if (range !== 'unicast') return range;
  // ::/96 (IPv4-compatible, RFC 4291 2.5.5.1, deprecated); :: and ::1 are caught above by range().
  if (v6.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return null;
}

/** The IPv4 addresses an IPv6 address of a translation or tunnel range leads to, else null. */
function embeddedIpv4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4[] | null {
  const bytes = v6.toByteArray();
  const v4 = (offset: number, xor = 0) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => b ^ xor));
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [v4(12)];
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64); the local-use 64:ff9b:1::/48 places it by prefix length: judged as 0.0.0.0
      return v6.parts.slice(2, 6).every((part) => part === 0) ? [v4(12)] : [new ipaddr.IPv4([0, 0, 0, 0])];
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(2)];
    case 'teredo': // 2001:0:SSSS:SSSS:flags:port:~CCCC:~CCCC (server, then the obfuscated client)
      return [v4(4), v4(12, 0xff)];
    default:
      return null;
  }
}
