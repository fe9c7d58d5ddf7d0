// SSRF guard for webhook URLs (API.md §6): live endpoints must be https and must not reach
// loopback, private, link-local, unique-local or otherwise internal addresses. The check runs
// after DNS resolution, on every attempt, inside the connection's own lookup: the socket
// connects to exactly the address that was checked, so DNS rebinding between a check and the
// connect cannot slip through. Redirects are never followed (webhook-sender.ts).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Config } from '../config.js';
import type { Mode } from '../generated/prisma/enums.js';

export interface UrlPolicy {
  requireHttps: boolean;
  allowLoopback: boolean;
  /** Everything goes (development and tests of the sandbox). */
  allowPrivate: boolean;
}

export function policyFor(mode: Mode, config: Config): UrlPolicy {
  if (mode === 'live') {
    const open = config.WEBHOOK_LIVE_ALLOW_PRIVATE;
    return { requireHttps: !open, allowLoopback: open, allowPrivate: open };
  }
  // The sandbox allows http and loopback (API.md §6); private ranges (cloud metadata at
  // 169.254.169.254, the internal network) only outside production.
  return { requireHttps: false, allowLoopback: config.WEBHOOK_SANDBOX_ALLOW_LOOPBACK, allowPrivate: !config.isProduction };
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

// RFC 6890 special-purpose ranges a public webhook receiver never has.
const internal = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) internal.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48],
  ['2001:db8::', 32], ['2002::', 16], ['100::', 64],
] as const) internal.addSubnet(net, bits, 'ipv6');

const mapped = new BlockList();
mapped.addSubnet('::ffff:0:0', 96, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:yyyy). */
function unmap(ip: string): string | null {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Why an address may not be connected to under the policy, or null when it may. */
export function refusalFor(address: string, policy: UrlPolicy): string | null {
  const family = isIP(address);
  if (!family) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (type === 'ipv6' && mapped.check(address, 'ipv6')) {
    const v4 = unmap(address.toLowerCase());
    // Mapped addresses are refused whole when not parseable: no legitimate receiver uses them.
    return v4 ? refusalFor(v4, policy) : `${address} is an IPv4-mapped address`;
  }
  if (policy.allowPrivate) return null;
  if (loopback.check(address, type)) return policy.allowLoopback ? null : `${address} is a loopback address`;
  if (internal.check(address, type)) return `${address} is a private, link-local or reserved address`;
  return null;
}

export class UrlRefused extends Error {
  override name = 'UrlRefused';
}

/** Scheme and literal-address checks, made when an endpoint is saved and before each attempt. */
export function checkUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlRefused('must be an http(s) URL');
  if (policy.requireHttps && url.protocol !== 'https:') throw new UrlRefused('must use https for live endpoints');
  if (url.username || url.password) throw new UrlRefused('must not contain credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const reason = refusalFor(host, policy);
    if (reason) throw new UrlRefused(`must not point at an internal address (${reason})`);
  } else if (!policy.allowLoopback && !policy.allowPrivate && /(^|\.)localhost\.?$/i.test(host)) {
    throw new UrlRefused('must not point at localhost');
  }
  return url;
}

type Resolver = (hostname: string, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, cb) => dnsLookup(hostname, { all: true, verbatim: true }, cb);

/**
 * A net/tls `lookup` that resolves, refuses the whole name if any address is internal, and
 * hands the socket only the checked addresses. `resolve` can be replaced (tests resolve a
 * name to a private address without touching the system's DNS).
 */
export function guardedLookup(policy: UrlPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err);
      const wanted = addresses.filter((a) => !options.family || options.family === a.family || options.family === `IPv${a.family}`);
      if (!wanted.length) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }));
      for (const a of wanted) {
        const reason = refusalFor(a.address, policy);
        if (reason) return callback(new UrlRefused(`${hostname} resolves to a refused address (${reason})`));
      }
      if (options.all) callback(null, wanted);
      else callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  }) as LookupFunction;
}
