// Locations (docs/api.md, Locations). Scopes: company:read / company:write.
import type { Location } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { connectionType, NamedListOrderEnum, nodeQuery, resolveConnection } from '../connections.js';
import { found } from '../find-records.js';
import { isId } from '../../ids.js';
import { legacyPageArgs } from '../pagination.js';
import { createLocation, deleteLocation, updateLocation } from './manage-locations.js';
import { NodeInterface } from '../node.js';

export const LocationType = builder.prismaObject('Location', {
  interfaces: [NodeInterface],
  description: "A site of the company: its address and time zone (the zone of its employees' hours there)",
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The location id' }),
    name: t.exposeString('name', { description: 'Its name' }),
    address: t.exposeString('address', { description: 'Its postal address, one string' }),
    timeZone: t.exposeString('timeZone', { description: 'Its IANA time zone' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Its phone number in E.164' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed' }),
  }),
});

const LocationConnection = connectionType<Location>('Location', LocationType);

const locationInput = (create: boolean) =>
  builder.inputType(create ? 'CreateLocationInput' : 'UpdateLocationInput', {
    description: create ? 'A new location' : 'The fields to change; the rest stay',
    fields: (t) => ({
      name: t.string({ required: create, description: 'Its name, 1–200 characters' }),
      address: t.string({ required: create, description: 'Its postal address, 1–500 characters' }),
      timeZone: t.string({ required: create, description: 'Its IANA time zone, e.g. America/New_York' }),
      phone: t.string({ description: 'Its phone number in international format; null removes it' }),
    }),
  });
const CreateLocationInput = locationInput(true);
const UpdateLocationInput = locationInput(false);

const read = { scope: 'company:read' } as const;
const write = { scope: 'company:write' } as const;
const company = (ctx: { credential: { companyId: string } | null }) => ctx.credential!.companyId;

builder.queryFields((t) => ({
  locations: t.connection(
    {
      type: LocationType,
      description: "The company's locations, newest first unless ordered",
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        orderBy: t.arg({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const where = { companyId: company(ctx) };
        const query = nodeQuery(ctx, info, 'Location');
        return resolveConnection(
          a,
          a.orderBy,
          company(ctx),
          (q) => ctx.db.location.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.location.count({ where }),
        );
      },
    },
    LocationConnection,
  ),
  location: t.prismaField({
    type: 'Location',
    description: 'One location by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The location id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.location.findFirst({ ...query, where: { id: String(args.id), companyId: company(ctx) } })
          : null,
        'location',
      ),
  }),
}));

builder.mutationFields((t) => ({
  createLocation: t.field({
    type: LocationType,
    description: 'Creates a location',
    authScopes: write,
    args: { input: t.arg({ type: CreateLocationInput, required: true, description: 'The location' }) },
    resolve: (_r, args, ctx) => createLocation(ctx.db, { companyId: company(ctx), input: args.input }),
  }),
  updateLocation: t.field({
    type: LocationType,
    description: 'Changes the given fields of a location',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The location id' }),
      input: t.arg({ type: UpdateLocationInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateLocation(ctx.db, { companyId: company(ctx), locationId: String(args.id), input: args.input }),
  }),
  deleteLocation: t.field({
    type: LocationType,
    description:
      'Deletes a location; CONFLICT while resources, employees’ hours or active bookings use it; returns what was deleted',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The location id' }) },
    resolve: (_r, args, ctx) => deleteLocation(ctx.db, { companyId: company(ctx), locationId: String(args.id) }),
  }),
}));

builder.prismaObjectFields('Resource', (t) => ({
  locationId: t.exposeID('locationId', { nullable: true, description: 'The location it is at; null: none named' }),
}));

builder.prismaObjectFields('Booking', (t) => ({
  locationId: t.exposeID('locationId', {
    nullable: true,
    description: 'Where it takes place; null for a company without locations',
  }),
}));
