// /api/v1/services (docs/api.md). DELETE deactivates.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const Kind = Type.Union([Type.Literal('appointment'), Type.Literal('class')]);

export const Service = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    description: Nullable(Type.String()),
    kind: Kind,
    durationMinutes: Type.Integer(),
    price: Type.Integer({ description: "Minor units of the company's currency" }),
    bufferBeforeMinutes: Type.Integer(),
    bufferAfterMinutes: Type.Integer(),
    employeeIds: Type.Array(Id, { description: 'Employees qualified to perform it' }),
    requiresPayment: Type.Boolean(),
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Service', title: 'Service' },
);

const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 5000 })),
  durationMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
  price: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
  bufferBeforeMinutes: Type.Integer({ minimum: 0, maximum: 720 }),
  bufferAfterMinutes: Type.Integer({ minimum: 0, maximum: 720 }),
  employeeIds: Type.Array(Id, { maxItems: 500 }),
  requiresPayment: Type.Boolean(),
  active: Type.Boolean(),
};
const opt = Object.fromEntries(Object.entries(Fields).filter(([k]) => k !== 'name' && k !== 'durationMinutes').map(([k, v]) => [k, Type.Optional(v)]));
const CreateService = Type.Object(
  { name: Fields.name, durationMinutes: Fields.durationMinutes, kind: Type.Optional(Kind), ...opt },
  { additionalProperties: false },
);
const UpdateService = Type.Partial(Type.Object(Fields), { additionalProperties: false, description: 'kind is fixed at creation' });

const FIELDS = '_id name description kind durationMinutes price bufferBeforeMinutes bufferAfterMinutes employeeIds requiresPayment active createdAt updatedAt';
const params = (req: FastifyRequest) => req.params as Record<string, string>;
const tags = ['Services'];

export default async function serviceRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ services: unknown }>(app, deps, {
    method: 'GET', url: '/services', summary: 'List services, newest first', tags, scope: 'services:read', list: true,
    querystring: Type.Object({ ...PageQuery, active: Type.Optional(Type.Boolean()), kind: Type.Optional(Kind) }, { additionalProperties: false }),
    response: Service,
    operation: `query($limit: Int, $cursor: String, $active: Boolean, $kind: String) { services(limit: $limit, cursor: $cursor, active: $active, kind: $kind) { data { ${FIELDS} } pagination { limit hasMore nextCursor } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.services,
  });
  graphqlRoute<{ createService: unknown }>(app, deps, {
    method: 'POST', url: '/services', summary: 'Create a service', tags, scope: 'services:write',
    body: CreateService, response: Service,
    operation: `mutation($input: CreateServiceInput!) { createService(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createService,
  });
  graphqlRoute<{ service: unknown }>(app, deps, {
    method: 'GET', url: '/services/:id', summary: 'Get a service', tags, scope: 'services:read',
    params: Type.Object({ id: PathId }), response: Service,
    operation: `query($id: String!) { service(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.service,
  });
  graphqlRoute<{ updateService: unknown }>(app, deps, {
    method: 'PATCH', url: '/services/:id', summary: 'Change a service; employeeIds replaces the set', tags, scope: 'services:write',
    params: Type.Object({ id: PathId }), body: UpdateService, response: Service,
    operation: `mutation($id: String!, $input: UpdateServiceInput!) { updateService(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, input: req.body }),
    select: (d) => d.updateService,
  });
  graphqlRoute<{ deactivateService: unknown }>(app, deps, {
    method: 'DELETE', url: '/services/:id', summary: 'Deactivate a service (kept with its history, no longer bookable)', tags, scope: 'services:write',
    params: Type.Object({ id: PathId }), response: Service,
    operation: `mutation($id: String!) { deactivateService(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.deactivateService,
  });
}
