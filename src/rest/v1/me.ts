// GET /api/v1/me and PATCH /api/v1/me (docs/api.md, Company).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, Timestamp } from '../schemas.js';

const CompanyProfile = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String({ description: 'International format with leading +' })),
    address: Nullable(Type.String()),
    timezone: Type.String({ description: 'IANA time zone name' }),
    currency: Type.String({ description: 'ISO 4217 code' }),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    createdAt: Timestamp,
  },
  { $id: 'CompanyProfile', title: 'Company profile' },
);

const UpdateCompany = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Union([Type.String({ maxLength: 254 }), Type.Null()]),
    phone: Type.Union([Type.String({ maxLength: 32 }), Type.Null()]),
    address: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    timezone: Type.String({ maxLength: 64 }),
    currency: Type.String({ minLength: 3, maxLength: 3 }),
  },
  { additionalProperties: false },
);
const UpdateCompanyBody = Type.Partial(UpdateCompany, {
  additionalProperties: false,
  title: 'Company profile changes',
});

export default async function meRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/me',
    summary: 'The profile of the company the credential belongs to',
    tags: ['Company'],
    scope: 'company:read',
    response: CompanyProfile,
    query: 'me',
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/me',
    summary: "Change the company's profile; absent fields stay, null clears an optional one",
    tags: ['Company'],
    scope: 'company:write',
    request: { body: UpdateCompanyBody },
    response: CompanyProfile,
    mutation: 'updateMe',
    variables: (req) => ({ input: req.body }),
  });
}
