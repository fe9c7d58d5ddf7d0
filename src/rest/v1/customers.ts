// /api/v1/customers (docs/api.md).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { graphqlRoute, type V1Deps } from '../route.js';
import { Id, Metadata, MetadataPatch, Nullable, PageQuery, PathId, Timestamp } from '../schemas.js';

export const Customer = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    email: Type.String(),
    phone: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    metadata: Metadata,
    erasedAt: Nullable({
      ...Timestamp,
      description:
        'When the customer was erased (POST /customers/{id}/erase): name, email, phone, notes and metadata are placeholders since; null unless erased',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Customer', title: 'Customer' },
);

const CustomerFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ maxLength: 254, description: 'Unique in the company, case-insensitively' }),
  phone: Nullable(Type.String({ maxLength: 32, description: 'E.164, e.g. +14155550123' })),
  notes: Nullable(Type.String({ maxLength: 5000 })),
};
/** A new customer; also the `customer` of POST /bookings, which creates one or finds it by e-mail. */
export const CreateCustomer = Type.Object(
  {
    name: CustomerFields.name,
    email: CustomerFields.email,
    phone: Type.Optional(CustomerFields.phone),
    notes: Type.Optional(CustomerFields.notes),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
const UpdateCustomer = Type.Partial(Type.Object({ ...CustomerFields, metadata: MetadataPatch }), {
  additionalProperties: false,
});

export const ById = Type.Object({ id: PathId });
export const tags = ['Customers'];

export default async function customerRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/customers',
    operationId: 'listCustomers',
    summary: 'List customers, newest first',
    tags,
    scope: 'customers:read',
    list: true,
    request: {
      querystring: Type.Object(
        {
          ...PageQuery,
          email: Type.Optional(Type.String({ maxLength: 254 })),
          q: Type.Optional(
            Type.String({
              maxLength: 200,
              description:
                'Only customers whose name, e-mail or phone number starts with this, in any case (a phone by its digits: "+46 70 12" finds +46701234567)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    response: Customer,
    query: 'customers',
    variables: ({ query: { q, ...rest } }) => ({ ...rest, search: q }),
  });
  graphqlRoute(app, deps, {
    method: 'POST',
    url: '/customers',
    operationId: 'createCustomer',
    summary: 'Create a customer',
    tags,
    scope: 'customers:write',
    request: { body: CreateCustomer },
    response: Customer,
    mutation: 'createCustomer',
    variables: (req) => ({ input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'GET',
    url: '/customers/:id',
    operationId: 'getCustomer',
    summary: 'Get a customer',
    tags,
    scope: 'customers:read',
    request: { params: ById },
    response: Customer,
    query: 'customer',
    variables: (req) => req.params,
  });
  graphqlRoute(app, deps, {
    method: 'PATCH',
    url: '/customers/:id',
    operationId: 'updateCustomer',
    summary: 'Change a customer',
    tags,
    scope: 'customers:write',
    request: { params: ById, body: UpdateCustomer },
    response: Customer,
    mutation: 'updateCustomer',
    variables: (req) => ({ id: req.params.id, input: req.body }),
  });
  graphqlRoute(app, deps, {
    method: 'DELETE',
    url: '/customers/:id',
    operationId: 'deleteCustomer',
    summary: 'Delete a customer who has no bookings; returns the deleted record',
    tags,
    scope: 'customers:write',
    request: { params: ById },
    response: Customer,
    mutation: 'deleteCustomer',
    variables: (req) => req.params,
  });
}
