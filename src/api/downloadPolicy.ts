/**
 * Where a media result may be downloaded from. A media record is the gateway's data, and so is
 * every redirect its links answer with: without a rule, a hostile or compromised gateway could
 * make the extension fetch from this computer or its network (a local admin page, a cloud
 * metadata endpoint) and, through Variation, send what it got back to the gateway.
 *
 * The rule: the gateway's own origin is always allowed. Any other address on this computer or a
 * private network is allowed only when the gateway itself is in that same kind of place (a
 * gateway on 127.0.0.1 may link to another local port). A redirect may go only to the gateway's
 * origin or to the origin of the URL the record named.
 *
 * Hosts are judged by their syntax: IP literals by range, `localhost` by name. A public name that
 * resolves to a private address (DNS rebinding) is not caught; resolving names here would need
 * Node's `dns`, which this folder does without.
 */

/**
 * Whether a request to `target` carries the API key: only when it goes to the gateway's own
 * origin (scheme, host and port). The one place that decides it, for result downloads, their
 * redirects and a job's own polling URL alike: a storage host or another service a record links
 * to never sees the key, whatever path or look-alike host name the link has.
 */
export function sendsKeyTo(target: URL, gateway: URL): boolean {
  return target.origin === gateway.origin;
}

/** Where an address is, as far as its syntax tells. */
export type AddressPlace = 'public' | 'loopback' | 'private' | 'link-local';

/** The place of a URL's `hostname` (as `URL` gives it: IPv4 dotted, IPv6 in brackets, lower case). */
export function addressPlace(hostname: string): AddressPlace {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups ? ipv6Place(groups) : 'public';
  }
  const ipv4 = parseIpv4(host);
  return ipv4 ? ipv4Place(ipv4) : 'public';
}

/**
 * Why `target` may not be downloaded, or undefined when it may. `named` is the URL the media
 * record gave; `redirected` says `target` came from a redirect.
 */
export function downloadRefusal(
  target: URL,
  context: {
    gateway: URL;
    named: URL;
    redirected: boolean;
    /** What the URL is, for the message (default: a result's address that is downloaded). */
    what?: { noun: string; verb: string };
  },
): string | undefined {
  if (sendsKeyTo(target, context.gateway)) return undefined;
  if (context.redirected && target.origin !== context.named.origin) {
    return `The download of ${context.named.host} was redirected to ${target.host}, which is neither the gateway nor the result's own site, so it was not followed.`;
  }
  const place = addressPlace(target.hostname);
  if (place !== 'public' && place !== addressPlace(context.gateway.hostname)) {
    const where = place === 'loopback' ? 'on this computer' : 'on a private or local network';
    const { noun, verb } = context.what ?? { noun: "The result's address", verb: 'downloaded' };
    return `${noun} ${target.host} is ${where} and the gateway is not, so it was not ${verb}.`;
  }
  return undefined;
}

function parseIpv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

function ipv4Place([a, b]: number[]): AddressPlace {
  if (a === 127 || a === 0) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  // Shared address space (carrier-grade NAT), multicast, reserved and broadcast: not the internet.
  if ((a === 100 && b >= 64 && b <= 127) || a >= 224) return 'private';
  return 'public';
}

/** Eight 16-bit groups, or undefined when `text` is not an IPv6 address. */
function parseIpv6(text: string): number[] | undefined {
  let address = text;
  const tail: number[] = [];
  // An IPv4 tail (`::ffff:127.0.0.1`); URL writes it in hex, but accept both.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const ipv4 = parseIpv4(dotted[2]);
    if (!ipv4) return undefined;
    address = `${dotted[1]}0:0`;
    tail.push((ipv4[0] << 8) | ipv4[1], (ipv4[2] << 8) | ipv4[3]);
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const read = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':');
    return groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))
      ? groups.map((group) => parseInt(group, 16))
      : undefined;
  };
  const head = read(halves[0]);
  const rest = halves.length === 2 ? read(halves[1]) : [];
  if (!head || !rest) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<number>(missing).fill(0), ...rest];
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

function ipv6Place(groups: number[]): AddressPlace {
  const [first] = groups;
  const embeddedIpv4 = (high: number, low: number): AddressPlace =>
    ipv4Place([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] <= 1) return 'loopback'; // :: and ::1
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d).
  if (groups.slice(0, 5).every((group) => group === 0) && (groups[5] === 0xffff || groups[5] === 0))
    return embeddedIpv4(groups[6], groups[7]);
  if (first === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return embeddedIpv4(groups[6], groups[7]);
  if (first === 0x2002) return embeddedIpv4(groups[1], groups[2]); // 6to4
  if ((first & 0xfe00) === 0xfc00) return 'private'; // fc00::/7, unique local
  if ((first & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((first & 0xffc0) === 0xfec0 || (first & 0xff00) === 0xff00) return 'private'; // site-local, multicast
  return 'public';
}
