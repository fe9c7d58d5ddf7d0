// The REST API's versions (docs/api.md, Versions; docs/changelog.md): date-named, oldest first.
// A request names one in its API-Version header; without it, the version the company is pinned
// to applies (set to the latest when the company is created, changed in the admin area), as
// Stripe pins accounts. What each version changed, and how an answer is given to a client of
// an older one, lives with the REST layer (src/rest/api-version.ts); here is only the list,
// since a company's pin is domain data.
import { z } from 'zod';

export const API_VERSIONS = ['2026-11-23', '2026-11-24'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

export const apiVersionInput = z.enum(API_VERSIONS, {
  error: () => `must be one of ${API_VERSIONS.join(', ')}`,
});

export const isApiVersion = (v: string): v is ApiVersion => (API_VERSIONS as readonly string[]).includes(v);
