// The GraphQL schema says what it holds (docs/graphql.md): every type, field, argument and enum
// value of ours has a description (GraphiQL shows them), every id is an ID, statuses and kinds
// are enums, and amounts of money come as Money beside their deprecated integers.
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputField,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

const ours = () =>
  Object.values(schema.getTypeMap()).filter(
    (t) =>
      !t.name.startsWith('__') && !(isScalarType(t) && ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name)),
  );

function fieldsOf(): Array<[string, GraphQLField<unknown, unknown> | GraphQLInputField]> {
  return ours().flatMap((t) =>
    isObjectType(t) || isInterfaceType(t) || isInputObjectType(t)
      ? Object.values(t.getFields()).map((f) => [`${t.name}.${f.name}`, f] as [string, typeof f])
      : [],
  );
}

describe('the GraphQL schema', () => {
  it('describes every type, field, argument and enum value', () => {
    const missing: string[] = [];
    for (const t of ours()) {
      if (!t.description) missing.push(t.name);
      if (isEnumType(t)) for (const v of t.getValues()) if (!v.description) missing.push(`${t.name}.${v.name}`);
    }
    for (const [name, f] of fieldsOf()) {
      if (!f.description) missing.push(name);
      for (const a of 'args' in f ? f.args : []) if (!a.description) missing.push(`${name}(${a.name})`);
    }
    expect(missing).toEqual([]);
  });

  it('types every id as ID, in fields, arguments and inputs', () => {
    const notIds: string[] = [];
    const isIdName = (n: string) => n === '_id' || n === 'id' || /[a-z]Ids?$/.test(n);
    for (const [name, f] of fieldsOf()) {
      const field = name.split('.')[1]!;
      if (isIdName(field) && getNamedType(f.type).name !== 'ID') notIds.push(name);
      for (const a of 'args' in f ? f.args : [])
        if (isIdName(a.name) && getNamedType(a.type).name !== 'ID') notIds.push(`${name}(${a.name})`);
    }
    expect(notIds).toEqual([]);
  });

  it('has enums for statuses and kinds, with the strings REST and webhooks carry', () => {
    const values = (name: string) => {
      const t = schema.getType(name);
      return isEnumType(t) ? t.getValues().map((v) => v.value as string) : null;
    };
    expect(values('BookingStatus')).toEqual([
      'cancelled',
      'completed',
      'confirmed',
      'expired',
      'no_show',
      'offered',
      'pending',
      'waitlisted',
    ]);
    expect(values('ExpiredReason')).toEqual(['hold_lapsed', 'offer_lapsed']);
    expect(values('WaitlistOfferMode')).toEqual(['auto', 'offer']);
    expect(values('PaymentStatus')).toEqual(['failed', 'partially_refunded', 'processing', 'refunded', 'succeeded']);
    expect(values('ServiceKind')).toEqual(['appointment', 'class']);
    expect(values('ClassStatus')).toEqual(['cancelled', 'scheduled']);
    expect(values('DeliveryStatus')).toEqual(['failed', 'pending', 'succeeded']);
    expect(values('CompanyMode')).toEqual(['live', 'test']);
    expect(values('EmailKind')).toEqual([
      'booking_cancelled',
      'booking_confirmed',
      'booking_reminder',
      'booking_rescheduled',
      'payment_receipt',
      'waitlist_left',
      'waitlist_offer',
    ]);
    const statusFields = fieldsOf().filter(([n]) => /\.(status|kind|mode)$/.test(n) && !n.startsWith('Email.'));
    expect(statusFields.filter(([, f]) => !isEnumType(getNamedType(f.type))).map(([n]) => n)).toEqual([]);
  });

  it('gives money as Money, keeping the old integers deprecated', () => {
    for (const [type, money, old] of [
      ['Booking', 'priceMoney', 'price'],
      ['Service', 'priceMoney', 'price'],
      ['Payment', 'amountMoney', 'amount'],
      ['LateFee', 'amountMoney', 'amount'],
    ] as const) {
      const t = schema.getType(type);
      if (!isObjectType(t)) throw new Error(type);
      expect(getNamedType(t.getFields()[money]!.type).name).toBe('Money');
      expect(t.getFields()[old]!.deprecationReason).toMatch(new RegExp(money));
    }
  });
});
