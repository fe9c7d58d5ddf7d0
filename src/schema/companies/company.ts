// The company profile (docs/api.md, Company) as `me` and `updateMe`.
import { updateCompany } from './update-company.js';
import { builder } from '../builder.js';

export const CompanyType = builder.prismaObject('Company', {
  description: 'The company a credential belongs to',
  fields: (t) => ({
    _id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    address: t.exposeString('address', { nullable: true }),
    timezone: t.exposeString('timezone'),
    currency: t.exposeString('currency'),
    mode: t.exposeString('mode', { description: 'live, or test for the sandbox' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: CompanyType,
    description: 'The profile of the company the credential belongs to',
    authScopes: { scope: 'company:read' },
    // The credential's resolution already carries the profile; it is invalidated on change.
    resolve: (_root, _args, ctx) => ctx.credential!.company,
  }),
);

const UpdateCompanyInput = builder.inputType('UpdateCompanyInput', {
  fields: (t) => ({
    name: t.string({ required: false }),
    email: t.string({ required: false }),
    phone: t.string({ required: false }),
    address: t.string({ required: false }),
    timezone: t.string({ required: false }),
    currency: t.string({ required: false }),
  }),
});

builder.mutationField('updateMe', (t) =>
  t.field({
    type: CompanyType,
    authScopes: { scope: 'company:write' },
    args: { input: t.arg({ type: UpdateCompanyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const company = await updateCompany(ctx.db, { companyId: ctx.credential!.companyId, input });
      await ctx.services.credentials.invalidateCompany(company.id);
      return company;
    },
  }),
);
