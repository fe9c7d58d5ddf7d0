// Money in GraphQL (docs/graphql.md): an amount in minor units with its currency, so a price
// never travels without the currency it is counted in.
import { builder } from './builder.js';

export interface Money {
  amount: number;
  currency: string;
}

export const MoneyType = builder.objectRef<Money>('Money').implement({
  description: 'An amount of money: an integer in minor units of a currency (4500 with EUR is €45.00)',
  fields: (t) => ({
    amount: t.exposeInt('amount', { description: 'Minor units of the currency (cents for EUR and USD)' }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code, e.g. EUR' }),
  }),
});
