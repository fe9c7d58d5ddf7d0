// Customers (docs/api.md). Scopes: customers:read / customers:write.
import type { Customer } from '../../generated/prisma/client.js';
import { builder } from '../builder.js';
import { pageType, paginate } from '../pagination.js';
import { findCustomer } from '../find-records.js';
import { createCustomer, deleteCustomer, updateCustomer } from './manage-customers.js';

export const CustomerType = builder.objectRef<Customer>('Customer').implement({
  fields: (t) => ({
    _id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    phone: t.exposeString('phone', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const CustomerPage = pageType('Customer', CustomerType);

export const CustomerInput = builder.inputType('CustomerInput', {
  fields: (t) => ({ name: t.string(), email: t.string(), phone: t.string(), notes: t.string() }),
});

const read = { scope: 'customers:read' } as const;
const write = { scope: 'customers:write' } as const;

builder.queryFields((t) => ({
  customers: t.field({
    type: CustomerPage,
    authScopes: read,
    args: { limit: t.arg.int(), cursor: t.arg.string(), email: t.arg.string() },
    resolve: (_r, args, ctx) =>
      paginate(args, (q) =>
        ctx.db.customer.findMany({
          ...q,
          where: {
            ...q.where,
            companyId: ctx.credential!.companyId,
            ...(args.email ? { email: args.email.toLowerCase() } : {}),
          },
        }),
      ),
  }),
  customer: t.field({
    type: CustomerType,
    authScopes: read,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => findCustomer(ctx.db, ctx.credential!.companyId, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    type: CustomerType,
    authScopes: write,
    args: { input: t.arg({ type: CustomerInput, required: true }) },
    resolve: (_r, args, ctx) => createCustomer(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateCustomer: t.field({
    type: CustomerType,
    authScopes: write,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: CustomerInput, required: true }) },
    resolve: (_r, args, ctx) =>
      updateCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: args.id, input: args.input }),
  }),
  deleteCustomer: t.field({
    type: CustomerType,
    description: 'Deletes a customer without bookings; returns what was deleted',
    authScopes: write,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => deleteCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: args.id }),
  }),
}));
