// A REST route's GraphQL document is derived (src/rest/selection.ts): the selection from the
// route's response schema, the variables from the GraphQL field's arguments. A response field
// the GraphQL type does not have must stop the server at start-up, not fail a request.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileOperation } from '../../src/rest/operation.js';
import { Nullable, Timestamp } from '../../src/rest/schemas.js';
import { liveVariablesOf } from '../../src/rest/live-graph.js';
import { deriveOperation, operationFor, selectionOf } from '../../src/rest/selection.js';
import { schema } from '../../src/schema/index.js';

describe('selectionOf', () => {
  it('names every property; objects in arrays and in either branch of a union get their own selection', () => {
    const Range = Type.Object({ start: Type.String(), end: Type.String() });
    const s = Type.Object({
      _id: Type.String(),
      at: Nullable(Timestamp),
      hours: Type.Object({ monday: Type.Array(Range) }),
      last: Nullable(Type.Object({ code: Type.Integer() })),
      headers: Type.Record(Type.String(), Type.String()),
    });
    expect(selectionOf(undefined, s)).toBe('_id at hours { monday { start end } } last { code } headers');
  });

  it('merges the properties of a union of objects', () => {
    const s = Type.Union([
      Type.Object({ slots: Type.Array(Type.Object({ a: Type.String() })) }),
      Type.Object({ sessions: Type.Array(Type.Object({ b: Type.String() })) }),
    ]);
    expect(selectionOf(undefined, s)).toBe('slots { a } sessions { b }');
  });
});

describe('operationFor', () => {
  it("declares each of the field's arguments as a variable of its own type", () => {
    const Profile = Type.Object({ _id: Type.String(), name: Type.String() });
    expect(operationFor(schema, 'mutation', 'updateMe', Profile)).toBe(
      'mutation($input: UpdateCompanyInput!) { updateMe(input: $input) { _id name } }',
    );
    expect(operationFor(schema, 'query', 'me', Profile)).toBe('query { me { _id name } }');
  });

  it("a list selects the connection's nodes and page info; REST's limit and cursor are first and after", () => {
    const source = operationFor(schema, 'query', 'customers', Type.Object({ _id: Type.String() }), { list: true });
    expect(source).toMatch(/\{ customers\([^)]*\) \{ nodes \{ _id \} pageInfo \{ hasNextPage endCursor \} \} \}$/);
    expect(source).toContain('first: $limit');
    expect(source).toContain('after: $cursor');
    expect(source).toMatch(/\$limit: Int\b/);
    expect(source).not.toMatch(/\blimit: \$|\bcursor: \$|\bdata \{|pagination \{/);
  });

  it('a deprecated Money field is selected through its live field under the REST name', () => {
    const Item = Type.Object({ _id: Type.String(), price: Type.Integer(), currency: Type.String() });
    expect(operationFor(schema, 'query', 'booking', Item)).toBe(
      'query($id: ID!) { booking(id: $id) { _id price: priceMoney { amount } currency: priceMoney { currency } } }',
    );
    const derived = deriveOperation(schema, 'query', 'payments', Type.Object({ amount: Type.Integer() }), {
      list: true,
    });
    expect(derived.live).toEqual([{ path: ['nodes', 'amount'], key: 'amount' }]);
  });

  it('leaves a deprecated argument out; one that moved into input is folded there when REST passes it', () => {
    const derived = deriveOperation(schema, 'mutation', 'rescheduleBooking', Type.Object({ _id: Type.String() }));
    expect(derived.source).toBe(
      'mutation($id: ID!, $input: RescheduleBookingInput) { rescheduleBooking(id: $id, input: $input) { _id } }',
    );
    expect([...derived.folded].sort()).toEqual(['employeeId', 'startTime']);
    expect(derived.leftOut).toEqual([]);
    const op = { folded: derived.folded, fieldName: 'rescheduleBooking' };
    expect(liveVariablesOf({ id: 'b', startTime: 's' }, op)).toEqual({ id: 'b', input: { startTime: 's' } });
    expect(liveVariablesOf({ id: 'b', input: { startTime: 's' } }, op)).toEqual({ id: 'b', input: { startTime: 's' } });
    expect(() => liveVariablesOf({ id: 'b', startTime: 's', input: {} }, op)).toThrow(/input alone/);
  });

  it('a response field the GraphQL type lacks, or an unknown field, fails when the route is built', () => {
    const withExtra = Type.Object({ _id: Type.String(), notAField: Type.String() });
    expect(() => compileOperation(schema, operationFor(schema, 'query', 'me', withExtra))).toThrow(/notAField/);
    expect(() => operationFor(schema, 'query', 'noSuchField', withExtra)).toThrow(/no query field noSuchField/);
  });
});
