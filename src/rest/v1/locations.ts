// /api/v1/locations (docs/api.md, Locations). Scopes: company:read / company:write.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

const Location = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    address: Type.String(),
    timeZone: Type.String({ description: 'IANA time zone' }),
    phone: Nullable(Type.String({ description: 'E.164' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Location', title: 'Location (a site of the company)' },
);

const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  address: Type.String({ minLength: 1, maxLength: 500 }),
  timeZone: Type.String({ maxLength: 64, description: 'An IANA time zone, e.g. America/New_York' }),
  phone: Nullable(Type.String({ maxLength: 32, description: 'International format; null removes it' })),
};
const CreateLocation = Type.Object(
  { name: Fields.name, address: Fields.address, timeZone: Fields.timeZone, phone: Type.Optional(Fields.phone) },
  { additionalProperties: false },
);
const UpdateLocation = Type.Partial(Type.Object(Fields), { additionalProperties: false });

const ById = Type.Object({ id: PathId });
const tags = ['Locations'];

export default async function locationRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/locations',
    operationId: 'listLocations',
    summary: "List the company's locations, newest first",
    tags,
    scope: 'company:read',
    list: true,
    request: { querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
    response: Location,
    query: 'locations',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/locations',
    operationId: 'createLocation',
    summary: 'Create a location',
    tags,
    scope: 'company:write',
    request: { body: CreateLocation },
    response: Location,
    mutation: 'createLocation',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/locations/:id',
    operationId: 'getLocation',
    summary: 'Get a location',
    tags,
    scope: 'company:read',
    request: { params: ById },
    response: Location,
    query: 'location',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/locations/:id',
    operationId: 'updateLocation',
    summary: 'Change a location',
    tags,
    scope: 'company:write',
    request: { params: ById, body: UpdateLocation },
    response: Location,
    mutation: 'updateLocation',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/locations/:id',
    operationId: 'deleteLocation',
    summary:
      'Delete a location; 409 CONFLICT (details.resourceIds, employeeIds, bookingIds) while resources, employees’ hours or active bookings use it',
    tags,
    scope: 'company:write',
    request: { params: ById },
    response: Location,
    mutation: 'deleteLocation',
    variables: (req) => req.params,
  });
}
