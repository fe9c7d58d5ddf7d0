// Rooms and equipment (docs/api.md, Rooms and equipment). Scopes: services:read / services:write.
import type { Resource, ResourceKind } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import {
  connectionType,
  NamedListOrderEnum,
  nodeQuery,
  orderByOf,
  resolveConnection,
  relatedQuery,
} from '../connections.js';
import { found } from '../find-records.js';
import { isId } from '../../ids.js';
import { legacyPageArgs } from '../pagination.js';
import { readWorkingHours, WorkingHoursInput, WorkingHoursType } from '../staff/index.js';
import { createResource, deleteResource, resourceFilter, updateResource } from './manage-resources.js';
import { NodeInterface } from '../node.js';

export const ResourceKindEnum = builder.enumType('ResourceKind', {
  description: 'What a resource is',
  values: {
    room: { description: 'A room (a treatment room, a studio)' },
    equipment: { description: 'A piece of equipment (a laser, a chair)' },
  } satisfies Record<ResourceKind, { description: string }>,
});

export const ResourceType = builder.prismaObject('Resource', {
  interfaces: [NodeInterface],
  description:
    'A room or piece of equipment: a booking of a service that requires it holds it for its block, and no two active holds of one resource overlap',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The resource id' }),
    name: t.exposeString('name', { description: 'Its name' }),
    kind: t.expose('kind', { type: ResourceKindEnum, description: 'room or equipment' }),
    workingHours: t.field({
      type: WorkingHoursType,
      nullable: true,
      description: 'When it can be booked, weekly in the company time zone; null: always',
      resolve: (r) => (r.workingHours === null ? null : readWorkingHours(r.workingHours)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const ResourceConnection = connectionType<Resource>('Resource', ResourceType);

const resourceInput = (create: boolean) =>
  builder.inputType(create ? 'CreateResourceInput' : 'UpdateResourceInput', {
    description: create ? 'A new resource' : 'The fields to change; the rest stay',
    fields: (t) => ({
      name: t.string({ required: create, description: 'Its name, 1–200 characters' }),
      kind: t.field({ type: ResourceKindEnum, required: create, description: 'room or equipment' }),
      locationId: t.id({ description: 'The location it is at; null: none' }),
      workingHours: t.field({
        type: WorkingHoursInput,
        description: 'Weekly hours in the company time zone; null or left out: always available',
      }),
    }),
  });
const CreateResourceInput = resourceInput(true);
const UpdateResourceInput = resourceInput(false);

const read = { scope: 'services:read' } as const;
const write = { scope: 'services:write' } as const;
const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  resources: t.connection(
    {
      type: ResourceType,
      description: 'Rooms and equipment, newest first unless ordered',
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        kind: t.arg({ type: ResourceKindEnum, description: 'Only resources of this kind' }),
        orderBy: t.arg({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const where = resourceFilter(company(ctx), { kind: a.kind });
        const query = nodeQuery(ctx, info, 'Resource');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.resource.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.resource.count({ where }),
        );
      },
    },
    ResourceConnection,
  ),
  resource: t.prismaField({
    type: 'Resource',
    description: 'One resource by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The resource id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.resource.findFirst({ ...query, where: { id: String(args.id), companyId: company(ctx) } })
          : null,
        'resource',
      ),
  }),
}));

builder.mutationFields((t) => ({
  createResource: t.field({
    type: ResourceType,
    description: 'Creates a room or piece of equipment',
    authScopes: write,
    args: { input: t.arg({ type: CreateResourceInput, required: true, description: 'The resource' }) },
    resolve: (_r, args, ctx) => createResource(ctx.db, { companyId: company(ctx), input: args.input }),
  }),
  updateResource: t.field({
    type: ResourceType,
    description: 'Changes the given fields of a resource',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The resource id' }),
      input: t.arg({ type: UpdateResourceInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateResource(ctx.db, { companyId: company(ctx), resourceId: String(args.id), input: args.input }),
  }),
  deleteResource: t.field({
    type: ResourceType,
    description:
      'Deletes a resource; CONFLICT while a service requires it or an active booking or class holds it; returns what was deleted',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The resource id' }) },
    resolve: (_r, args, ctx) => deleteResource(ctx.db, { companyId: company(ctx), resourceId: String(args.id) }),
  }),
}));

builder.prismaObjectFields('Company', (t) => ({
  resources: t.relatedConnection(
    'resources',
    {
      description: "The company's rooms and equipment (needs services:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: {
        kind: t.arg({ type: ResourceKindEnum, description: 'Only resources of this kind' }),
        orderBy: t.arg({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      query: (a, ctx) =>
        relatedQuery(a, company(ctx), {
          where: resourceFilter(company(ctx), { kind: a.kind }),
          orderBy: orderByOf(a.orderBy),
        }),
    },
    ResourceConnection,
  ),
}));

builder.prismaObjectFields('Booking', (t) => ({
  resourceIds: t.idList({
    description:
      'The rooms and equipment the booking holds (or held, once cancelled or over), for the same time as its employee, buffers included',
    select: { resourceHolds: { select: { resourceId: true }, orderBy: { resourceId: 'asc' } } },
    resolve: (b) => b.resourceHolds.map((h) => h.resourceId),
  }),
}));

builder.prismaObjectFields('Service', (t) => ({
  requiredResourceIds: t.exposeIDList('requiredResourceIds', {
    description: 'Resources every booking of it holds, all of them',
  }),
  requiredResourceKinds: t.field({
    type: [ResourceKindEnum],
    description: 'For each kind listed, a booking holds any one free resource of that kind',
    resolve: (s) => s.requiredResourceKinds,
  }),
}));
