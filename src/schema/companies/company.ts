// The company profile (docs/api.md, Company) as `me` and `updateMe`.
import type { Mode } from '../../generated/prisma/client.js';
import { updateCompany } from './update-company.js';
import { builder } from '../builder.js';
import { companyBookingRules } from '../booking-rules.js';
import { BookingRulesInput, BookingRulesType } from '../booking-rules-type.js';
import { companyReminders, ReminderInput, ReminderType } from '../notifications/index.js';
import { NodeInterface } from '../node.js';

export const CompanyModeEnum = builder.enumType('CompanyMode', {
  description: "A company's mode: which database holds it and whether its payments and e-mail are real",
  values: {
    live: { description: 'Real payments and e-mail' },
    test: { description: 'The sandbox: simulated payments, logged e-mail' },
  } satisfies Record<Mode, { description: string }>,
});

export const CompanyType = builder.prismaObject('Company', {
  interfaces: [NodeInterface],
  description: 'The company a credential belongs to',
  fields: (t) => ({
    _id: t.exposeID('id', { description: 'The company id' }),
    name: t.exposeString('name', { description: 'Its name' }),
    email: t.exposeString('email', { nullable: true, description: 'Contact e-mail address' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Contact phone number in E.164' }),
    address: t.exposeString('address', { nullable: true, description: 'Postal address' }),
    timezone: t.exposeString('timezone', {
      description: 'IANA time zone: working hours, slots and local days are in it',
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217 code of every price' }),
    apiVersion: t.exposeString('apiVersion', {
      description:
        'The REST API version (date-named) requests of this company get without an API-Version header; the latest when the company was created',
    }),
    mode: t.expose('mode', { type: CompanyModeEnum, description: 'Live, or test for the sandbox' }),
    bookingRules: t.field({
      type: BookingRulesType,
      description: "The company's booking rules (each service may override them)",
      resolve: (c) => companyBookingRules(c.bookingRules),
    }),
    reminders: t.field({
      type: [ReminderType],
      description:
        'The reminders every booking gets, earliest first, unless its service has its own (default: one e-mail 24 hours before)',
      resolve: (c) => companyReminders(c.reminders),
    }),
    metadata: t.expose('metadata', {
      type: 'Metadata',
      description: 'Your own key/value pairs (docs/api.md, Metadata)',
    }),
    testClockId: t.exposeID('testClockId', {
      nullable: true,
      description:
        "The test clock whose time is the company's domain time (docs/sandbox.md, Test clocks); null: the real time. Always null for live companies",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created' }),
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

/** The credential itself: the root of everything it can see. */
const ViewerType = builder.objectRef<{ scopes: string[] }>('Viewer').implement({
  description: 'The credential making the request: its company (the root of the graph), mode and scopes',
  fields: (t) => ({
    company: t.prismaField({
      type: 'Company',
      nullable: true,
      description:
        "The credential's company, and through it everything the credential may read (needs company:read; " +
        'each list needs its own scope)',
      authScopes: { scope: 'company:read' },
      resolve: (query, _v, _a, ctx) =>
        ctx.db.company.findUniqueOrThrow({ ...query, where: { id: ctx.credential!.companyId } }),
    }),
    mode: t.field({
      type: CompanyModeEnum,
      description: 'Live, or test for the sandbox: which data every field reads',
      resolve: (_v, _a, ctx) => ctx.credential!.mode,
    }),
    scopes: t.exposeStringList('scopes', { description: 'The scopes the credential holds, sorted' }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerType,
    description: 'The credential making the request and its company: the root of the graph',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ({ scopes: [...ctx.credential!.scopes].sort() }),
  }),
);

const UpdateCompanyInput = builder.inputType('UpdateCompanyInput', {
  description: 'The fields of the profile to change; the rest stay',
  fields: (t) => ({
    name: t.string({ required: false, description: 'Its name' }),
    email: t.string({ required: false, description: 'Contact e-mail address' }),
    phone: t.string({ required: false, description: 'Contact phone number in E.164' }),
    address: t.string({ required: false, description: 'Postal address' }),
    timezone: t.string({ required: false, description: 'IANA time zone, e.g. Europe/Berlin' }),
    currency: t.string({ required: false, description: 'ISO 4217 code, upper case, e.g. EUR' }),
    bookingRules: t.field({
      type: BookingRulesInput,
      required: false,
      description: 'Rules to change; the others stay',
    }),
    reminders: t.field({
      type: [ReminderInput],
      required: false,
      description:
        'The reminders every booking gets (the whole list, replacing the stored one): up to 5, 5 minutes to 14 days before; [] for none, null for the default',
    }),
    metadata: t.field({
      type: 'Metadata',
      description: 'Keys to set, merged into the stored ones; a key set to null is removed',
    }),
    testClockId: t.id({
      required: false,
      description:
        'Attach the company to one of its test clocks (sandbox only; FORBIDDEN for live companies); null detaches it',
    }),
  }),
});

builder.mutationField('updateMe', (t) =>
  t.field({
    type: CompanyType,
    description: "Changes the company's profile",
    authScopes: { scope: 'company:write' },
    args: { input: t.arg({ type: UpdateCompanyInput, required: true, description: 'The fields to change' }) },
    resolve: async (_root, { input }, ctx) => {
      const company = await updateCompany(ctx.db, {
        companyId: ctx.credential!.companyId,
        mode: ctx.credential!.mode,
        input,
      });
      await ctx.services.credentials.invalidateCompany(company.id);
      return company;
    },
  }),
);
