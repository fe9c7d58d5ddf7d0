// /api/v1/customers (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

export const Customer = Type.Object(
  { _id: Id, name: Type.String(), email: Type.String(), phone: Nullable(Type.String()), notes: Nullable(Type.String()), createdAt: Timestamp, updatedAt: Timestamp },
  { $id: 'Customer', title: 'Customer' },
);

export const CustomerFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ maxLength: 254, description: 'Unique in the company, case-insensitively' }),
  phone: Nullable(Type.String({ maxLength: 32, description: 'E.164, e.g. +14155550123' })),
  notes: Nullable(Type.String({ maxLength: 5000 })),
};
const CreateCustomer = Type.Object(
  { name: CustomerFields.name, email: CustomerFields.email, phone: Type.Optional(CustomerFields.phone), notes: Type.Optional(CustomerFields.notes) },
  { additionalProperties: false },
);
const UpdateCustomer = Type.Partial(Type.Object(CustomerFields), { additionalProperties: false });

const FIELDS = '_id name email phone notes createdAt updatedAt';
const params = (req: FastifyRequest) => req.params as Record<string, string>;
const tags = ['Customers'];

export default async function customerRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute<{ customers: unknown }>(app, deps, {
    method: 'GET', url: '/customers', summary: 'List customers, newest first', tags, scope: 'customers:read', list: true,
    querystring: Type.Object({ ...PageQuery, email: Type.Optional(Type.String({ maxLength: 254 })) }, { additionalProperties: false }),
    response: Customer,
    operation: `query($limit: Int, $cursor: String, $email: String) { customers(limit: $limit, cursor: $cursor, email: $email) { data { ${FIELDS} } pagination { limit hasMore nextCursor } } }`,
    variables: (req) => req.query as Record<string, unknown>,
    select: (d) => d.customers,
  });
  graphqlRoute<{ createCustomer: unknown }>(app, deps, {
    method: 'POST', url: '/customers', summary: 'Create a customer', tags, scope: 'customers:write',
    body: CreateCustomer, response: Customer,
    operation: `mutation($input: CustomerInput!) { createCustomer(input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    select: (d) => d.createCustomer,
  });
  graphqlRoute<{ customer: unknown }>(app, deps, {
    method: 'GET', url: '/customers/:id', summary: 'Get a customer', tags, scope: 'customers:read',
    params: Type.Object({ id: PathId }), response: Customer,
    operation: `query($id: String!) { customer(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.customer,
  });
  graphqlRoute<{ updateCustomer: unknown }>(app, deps, {
    method: 'PATCH', url: '/customers/:id', summary: 'Change a customer', tags, scope: 'customers:write',
    params: Type.Object({ id: PathId }), body: UpdateCustomer, response: Customer,
    operation: `mutation($id: String!, $input: CustomerInput!) { updateCustomer(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: params(req).id, input: req.body }),
    select: (d) => d.updateCustomer,
  });
  graphqlRoute<{ deleteCustomer: unknown }>(app, deps, {
    method: 'DELETE', url: '/customers/:id', summary: 'Delete a customer who has no bookings; returns the deleted record', tags, scope: 'customers:write',
    params: Type.Object({ id: PathId }), response: Customer,
    operation: `mutation($id: String!) { deleteCustomer(id: $id) { ${FIELDS} } }`,
    variables: params,
    select: (d) => d.deleteCustomer,
  });
}
