// Customers (docs/api.md). Scopes: customers:read / customers:write.
import type { Customer, Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId } from '../../ids.js';
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
import { legacyPageArgs } from '../pagination.js';
import { eraseCustomer } from './erase-customer.js';
import { createCustomer, deleteCustomer, updateCustomer } from './manage-customers.js';
import { countCustomerSearch, searchCustomerIds, searchText } from './search-customers.js';
import { NodeInterface } from '../node.js';

export const CustomerType = builder.prismaObject('Customer', {
  interfaces: [NodeInterface],
  description: 'A person who books; the e-mail is unique in the company',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The customer id' }),
    name: t.exposeString('name', { description: 'Full name' }),
    email: t.exposeString('email', { description: 'E-mail address, lower-cased, unique in the company' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Phone number in E.164, e.g. +14155550100' }),
    notes: t.exposeString('notes', { nullable: true, description: "The business's notes" }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    erasedAt: t.expose('erasedAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'When the customer was erased (eraseCustomer): their personal data was replaced by placeholders; null unless erased',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the customer was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the customer last changed' }),
  }),
});

export const CustomerConnection = connectionType<Customer>('Customer', CustomerType);

const customerWhere = (companyId: string, a: { email?: string | null }): Prisma.CustomerWhereInput => ({
  companyId,
  ...(a.email ? { email: a.email.toLowerCase() } : {}),
});

export const CustomerInput = builder.inputType('CustomerInput', {
  description: 'A customer: name and email required on creation; on update, the fields to change',
  fields: (t) => ({
    name: t.string({ description: 'Full name' }),
    email: t.string({ description: 'E-mail address, unique in the company' }),
    phone: t.string({ description: 'Phone number in E.164, e.g. +14155550100' }),
    notes: t.string({ description: "The business's notes" }),
    metadata: t.field({
      type: 'Metadata',
      description: 'Your own key/value pairs; on update merged into the stored ones (a key set to null is removed)',
    }),
  }),
});

const read = { scope: 'customers:read' } as const;
const write = { scope: 'customers:write' } as const;

builder.queryFields((t) => ({
  customers: t.connection(
    {
      type: CustomerType,
      description: 'Customers, newest first unless ordered',
      authScopes: read,
      args: {
        ...legacyPageArgs(t.arg),
        email: t.arg.string({ description: 'Only the customer with this e-mail' }),
        search: t.arg.string({
          description:
            'Only customers whose name, e-mail or phone number starts with this, in any case (a phone by its digits: "+46 70 12" finds +46701234567); newest first only',
        }),
        orderBy: t.arg({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      resolve: (_r, a, ctx, info) => {
        const companyId = ctx.credential!.companyId;
        const query = nodeQuery(ctx, info, 'Customer');
        const search = searchText(a.search, 'search');
        if (search) {
          // Served by the search indexes newest first (search-customers.ts): no other order,
          // and pages forward only.
          if (a.orderBy && a.orderBy !== 'NEWEST_FIRST')
            throw AppError.validation([{ path: 'orderBy', message: 'must be NEWEST_FIRST (or absent) with search' }]);
          if (a.last != null || a.before != null)
            throw AppError.validation([
              { path: a.last != null ? 'last' : 'before', message: 'cannot be combined with search' },
            ]);
          const filter = { companyId, q: search, email: a.email };
          return resolveConnection(
            a,
            a.orderBy,
            companyId,
            async (q) => {
              const before = q.where.id && 'lt' in q.where.id ? q.where.id.lt : null;
              const ids = await searchCustomerIds(ctx.db, { ...filter, before, take: q.take });
              return ctx.db.customer.findMany({ ...query, where: { id: { in: ids } }, orderBy: { id: 'desc' } });
            },
            () => countCustomerSearch(ctx.db, filter),
          );
        }
        const where = customerWhere(companyId, a);
        return resolveConnection(
          a,
          a.orderBy,
          companyId,
          (q) => ctx.db.customer.findMany({ ...query, ...q, where: { ...q.where, ...where } }),
          () => ctx.db.customer.count({ where }),
        );
      },
    },
    CustomerConnection,
  ),
  customer: t.prismaField({
    type: 'Customer',
    description: 'One customer by id',
    authScopes: read,
    args: { id: t.arg.id({ required: true, description: 'The customer id' }) },
    resolve: async (query, _r, args, ctx) =>
      found(
        isId(String(args.id))
          ? await ctx.db.customer.findFirst({
              ...query,
              where: { id: String(args.id), companyId: ctx.credential!.companyId },
            })
          : null,
        'customer',
      ),
  }),
}));

builder.prismaObjectFields('Company', (t) => ({
  customers: t.relatedConnection(
    'customers',
    {
      description: "The company's customers (needs customers:read)",
      nullable: true,
      cursor: 'id',
      totalCount: true,
      authScopes: read,
      args: {
        email: t.arg.string({ description: 'Only the customer with this e-mail' }),
        orderBy: t.arg({ type: NamedListOrderEnum, description: 'The order (default NEWEST_FIRST)' }),
      },
      query: (a, ctx) => {
        const companyId = ctx.credential!.companyId;
        return relatedQuery(a, companyId, { where: customerWhere(companyId, a), orderBy: orderByOf(a.orderBy) });
      },
    },
    CustomerConnection,
  ),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    type: CustomerType,
    description: 'Creates a customer (CONFLICT when the e-mail is taken in the company)',
    authScopes: write,
    args: { input: t.arg({ type: CustomerInput, required: true, description: 'The customer' }) },
    resolve: (_r, args, ctx) => createCustomer(ctx.db, { companyId: ctx.credential!.companyId, input: args.input }),
  }),
  updateCustomer: t.field({
    type: CustomerType,
    description: 'Changes the given fields of a customer',
    authScopes: write,
    args: {
      id: t.arg.id({ required: true, description: 'The customer id' }),
      input: t.arg({ type: CustomerInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_r, args, ctx) =>
      updateCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: String(args.id), input: args.input }),
  }),
  deleteCustomer: t.field({
    type: CustomerType,
    description: 'Deletes a customer without bookings; returns what was deleted',
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The customer id' }) },
    resolve: (_r, args, ctx) =>
      deleteCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: String(args.id) }),
  }),
  eraseCustomer: t.field({
    type: CustomerType,
    description:
      "Replaces the customer's personal data everywhere it is held, keeps their bookings anonymous and emits customer.erased; cannot be undone (CONFLICT when already erased)",
    authScopes: write,
    args: { id: t.arg.id({ required: true, description: 'The customer id' }) },
    resolve: (_r, args, ctx) =>
      eraseCustomer(ctx.db, { companyId: ctx.credential!.companyId, customerId: String(args.id) }),
  }),
}));
