// SSRF guard for webhook URLs (docs/webhooks.md): live endpoints must be https and must not reach
// loopback, private, link-local, unique-local or otherwise internal addresses. The check runs
// after DNS resolution, on every attempt, inside the connection's own lookup: the socket
// connects to exactly the address that was checked, so DNS rebinding between a check and the
// connect cannot slip through. Redirects are never followed (src/workers/webhook-sender.ts).
//
// Addresses are classified with ipaddr.js's table of special-purpose ranges (RFC 6890 and
// successors): only its `unicast` (public) class is reachable by default. IPv6 forms that carry
// an IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by
// that IPv4 address; the deprecated IPv4-compatible ::/96 and other tunnels are refused whole.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';
import type { Mode } from '../generated/prisma/enums.js';

export interface UrlPolicy {
  /** Plain http is refused. */
  requireHttps: boolean;
  /** Loopback (127.0.0.0/8, ::1, their IPv4-in-IPv6 forms) and the name localhost. */
  allowLoopback: boolean;
  /**
   * Every other non-public range as well: private, link-local (cloud metadata at
   * 169.254.169.254), unique-local, CGNAT, multicast, unspecified, reserved. Explicit opt-in
   * only (WEBHOOK_LIVE_ALLOW_PRIVATE, WEBHOOK_SANDBOX_ALLOW_PRIVATE); no environment implies it.
   */
  allowPrivate: boolean;
}

export function policyFor(mode: Mode, config: Config): UrlPolicy {
  if (mode === 'live') {
    // Development relaxes http and loopback only (docs/webhooks.md), so a local receiver works; the
    // opt-in opens internal addresses too (an on-premises receiver, say).
    const open = config.WEBHOOK_LIVE_ALLOW_PRIVATE;
    const local = open || config.NODE_ENV === 'development';
    return { requireHttps: !local, allowLoopback: local, allowPrivate: open };
  }
  // The sandbox allows http and loopback (docs/webhooks.md); internal ranges only when opted into.
  return {
    requireHttps: false,
    allowLoopback: config.WEBHOOK_SANDBOX_ALLOW_LOOPBACK,
    allowPrivate: config.WEBHOOK_SANDBOX_ALLOW_PRIVATE,
  };
}

type Verdict = { kind: 'public' } | { kind: 'loopback' | 'internal'; reason: string };

const RANGE_NAMES: Record<string, string> = {
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
  deprecatedSiteLocal: 'site-local',
  rfc6145: 'IPv4-translated',
  rfc6052: 'local-use NAT64',
  teredo: 'Teredo tunnel',
};

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 address stands for, where it stands for one. */
function embeddedIPv4(ip: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | null {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (ip.isIPv4MappedAddress()) return { form: 'IPv4-mapped', v4: ip.toIPv4Address() };
  if (ip.match(NAT64)) return { form: 'NAT64', v4: v4(p[6]!, p[7]!) };
  if (p[0] === 0x2002) return { form: '6to4', v4: v4(p[1]!, p[2]!) };
  return null;
}

function classify(ip: ipaddr.IPv4 | ipaddr.IPv6): Verdict {
  const text = ip.toString();
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    const inner = embeddedIPv4(v6);
    if (inner) {
      const verdict = classify(inner.v4);
      return verdict.kind === 'public'
        ? verdict
        : { kind: verdict.kind, reason: `${text} is ${inner.form}: ${verdict.reason}` };
    }
    // ::a.b.c.d, deprecated since RFC 4291 (:: and ::1 are their own classes below).
    if (v6.parts.slice(0, 6).every((x) => x === 0) && (v6.parts[6] !== 0 || v6.parts[7]! > 1)) {
      return { kind: 'internal', reason: `${text} is a deprecated IPv4-compatible address` };
    }
  }
  const range = ip.range();
  if (range === 'unicast') return { kind: 'public' };
  if (range === 'loopback') return { kind: 'loopback', reason: `${text} is a loopback address` };
  const name = RANGE_NAMES[range] ?? `special-purpose (${range})`;
  return { kind: 'internal', reason: `${text} is a private, link-local or reserved address (${name})` };
}

/**
 * Parses an address. IPv6 text is first put in the WHATWG URL's canonical form (hex groups
 * only): ipaddr.js reads a dotted tail as IPv4-mapped (`::10.0.0.1` as `::ffff:a00:1`), where it
 * is the IPv4-compatible `::a00:1` the socket would connect to, and glibc prints those dotted.
 */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (isIP(address) === 4) return ipaddr.IPv4.parse(address);
  return ipaddr.IPv6.parse(new URL(`http://[${address.split('%')[0]}]`).hostname.slice(1, -1));
}

/** Why an address may not be connected to under the policy, or null when it may. */
export function refusalFor(address: string, policy: UrlPolicy): string | null {
  if (!isIP(address)) return `${address} is not an IP address`;
  const verdict = classify(parse(address));
  if (verdict.kind === 'public' || policy.allowPrivate) return null;
  if (verdict.kind === 'loopback' && policy.allowLoopback) return null;
  return verdict.reason;
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
  return ((
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err);
      const wanted = addresses.filter(
        (a) => !options.family || options.family === a.family || options.family === `IPv${a.family}`,
      );
      if (!wanted.length)
        return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }));
      for (const a of wanted) {
        const reason = refusalFor(a.address, policy);
        if (reason) return callback(new UrlRefused(`${hostname} resolves to a refused address (${reason})`));
      }
      if (options.all) callback(null, wanted);
      else callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  }) as LookupFunction;
}
