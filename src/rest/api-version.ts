// API versions (docs/api.md, Versions; docs/changelog.md): a request names one in its
// API-Version header, or gets the one its company is pinned to; every /api/v1 answer echoes the
// version it was given in an API-Version header. Routes answer in the latest shape; for a client
// of an older version, each change made since is undone, newest first, by its `downgrade`
// (Stripe's version changes work this way), so an old integration keeps the shape it was written
// against while every route has one implementation.
//
// Deprecations (RFC 9745 `Deprecation`, RFC 8594 `Sunset`) are declared here too, as what a
// request does that will stop working, with the date it was deprecated and the date it ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { API_VERSIONS, isApiVersion, type ApiVersion } from '../schema/companies/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version this request is answered in (set for authenticated /api/v1 requests). */
    apiVersion?: ApiVersion;
  }
}

export const API_VERSION_HEADER = 'API-Version';

/** One change of a version: the routes whose answer it changed, and how to give the old one. */
interface VersionChange {
  /** `METHOD /path` as the route declares it, relative to /api/v1. */
  route: string;
  summary: string;
  /** The answer's `data` in the shape before this change. */
  downgrade(data: unknown): unknown;
}

/** What each version changed (docs/changelog.md lists the same). The first version has none. */
export const VERSION_CHANGES: Record<ApiVersion, VersionChange[]> = {
  '2026-11-23': [],
  '2026-11-24': [
    {
      route: 'GET /me',
      summary: '`apiVersion`: the version the company is pinned to',
      downgrade: (data) => withoutKey(data, 'apiVersion'),
    },
    {
      route: 'PATCH /me',
      summary: '`apiVersion`: the version the company is pinned to',
      downgrade: (data) => withoutKey(data, 'apiVersion'),
    },
  ],
};

function withoutKey(data: unknown, key: string): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  const { [key]: _, ...rest } = data as Record<string, unknown>;
  return rest;
}

/** Whether any version changed the answer of `route`. */
export const changesAnswerOf = (route: string): boolean =>
  Object.values(VERSION_CHANGES).some((changes) => changes.some((c) => c.route === route));

/** The answer of `route` for a client of `version`: every later change undone, newest first. */
export function answerFor(route: string, version: ApiVersion | undefined, data: unknown): unknown {
  if (!version) return data;
  let out = data;
  for (let i = API_VERSIONS.length - 1; API_VERSIONS[i] !== version; i--) {
    for (const change of VERSION_CHANGES[API_VERSIONS[i]!]) if (change.route === route) out = change.downgrade(out);
  }
  return out;
}

/** A use of the API that still works and will stop: sent back as RFC 9745 and RFC 8594 headers. */
export interface Deprecation {
  /** When it was deprecated (a date). */
  since: string;
  /** When it stops working (a date). */
  sunset: string;
  what: string;
}

export function announceDeprecation(reply: FastifyReply, d: Deprecation): void {
  // RFC 9745: a Structured Field Date, `@` and seconds since the epoch; RFC 8594: an HTTP-date.
  reply.header('Deprecation', `@${Math.floor(Date.parse(`${d.since}T00:00:00Z`) / 1000)}`);
  reply.header('Sunset', new Date(`${d.sunset}T00:00:00Z`).toUTCString());
}

/**
 * Decides the version of each authenticated /api/v1 request (after the credential, before the
 * body is judged): the header's, which must be a known version, or the company's pin.
 */
export function registerApiVersion(app: FastifyInstance): void {
  app.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.credential) return;
    const asked = req.headers['api-version'];
    if (asked !== undefined) {
      const value = Array.isArray(asked) ? asked.join(',') : asked.trim();
      if (!isApiVersion(value)) {
        throw AppError.validation([
          { path: API_VERSION_HEADER, message: `must be one of ${API_VERSIONS.join(', ')} (date-named versions)` },
        ]);
      }
      req.apiVersion = value;
    } else {
      const pinned = req.credential.company.apiVersion;
      req.apiVersion = isApiVersion(pinned) ? pinned : API_VERSIONS[API_VERSIONS.length - 1];
    }
    reply.header(API_VERSION_HEADER, req.apiVersion);
  });
}
