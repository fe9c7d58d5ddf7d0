// /api/v1/resources (docs/api.md, Rooms and equipment). Scopes: services:read / services:write.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';
import { WorkingHours } from './employees.js';
import { ResourceKind } from './services.js';

const Resource = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    kind: ResourceKind,
    locationId: Nullable({ ...Id, description: 'The location it is at; null: none' }),
    workingHours: Nullable({
      ...WorkingHours,
      description: 'When it can be booked, weekly in the company time zone; null: always',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Resource', title: 'Resource (a room or piece of equipment)' },
);

const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  kind: ResourceKind,
  workingHours: Nullable({ ...WorkingHours, description: 'Weekly hours in the company time zone; null: always' }),
  locationId: Nullable({ ...Id, description: 'A location of the company; null: none' }),
};
const CreateResource = Type.Object(
  {
    name: Fields.name,
    kind: Fields.kind,
    workingHours: Type.Optional(Fields.workingHours),
    locationId: Type.Optional(Fields.locationId),
  },
  { additionalProperties: false },
);
const UpdateResource = Type.Partial(Type.Object(Fields), { additionalProperties: false });

const ById = Type.Object({ id: PathId });
const tags = ['Resources'];

export default async function resourceRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/resources',
    operationId: 'listResources',
    summary: 'List rooms and equipment, newest first',
    tags,
    scope: 'services:read',
    list: true,
    request: {
      querystring: Type.Object({ ...PageQuery, kind: Type.Optional(ResourceKind) }, { additionalProperties: false }),
    },
    response: Resource,
    query: 'resources',
    variables: (req) => req.query,
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/resources',
    operationId: 'createResource',
    summary: 'Create a room or piece of equipment',
    tags,
    scope: 'services:write',
    request: { body: CreateResource },
    response: Resource,
    mutation: 'createResource',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/resources/:id',
    operationId: 'getResource',
    summary: 'Get a resource',
    tags,
    scope: 'services:read',
    request: { params: ById },
    response: Resource,
    query: 'resource',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/resources/:id',
    operationId: 'updateResource',
    summary: 'Change a resource',
    tags,
    scope: 'services:write',
    request: { params: ById, body: UpdateResource },
    response: Resource,
    mutation: 'updateResource',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/resources/:id',
    operationId: 'deleteResource',
    summary:
      'Delete a resource; 409 CONFLICT (details.serviceIds, bookingIds, classIds) while a service requires it or an active booking or class holds it',
    tags,
    scope: 'services:write',
    request: { params: ById },
    response: Resource,
    mutation: 'deleteResource',
    variables: (req) => req.params,
  });
}
