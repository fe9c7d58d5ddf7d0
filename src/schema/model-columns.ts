// Raw SQL whose rows stand for a model's (a booking's INSERT … RETURNING, a service read past
// Prisma): each column under the model's field name, enums cast to text as Prisma gives them
// (pg leaves an enum array as PostgreSQL's text otherwise). One list per model, checked by the
// tests that compare such a row with Prisma's own read. The lists and the rows an INSERT is
// given are generated from prisma/schema.prisma (src/generated/rows.ts, scripts/rows-generator.mjs).
import { Prisma } from '../generated/prisma/client.js';
import type { Column, Table } from '../generated/rows.js';

/** A column, the model's field it is read as, and a cast (`text`, `text[]`) where needed. */
export type ModelColumn = readonly [column: string, field: string, cast?: string];

/** The select list of `columns`, each qualified by `table` when given. */
export function selectAs(columns: readonly ModelColumn[], table?: string): string {
  const of = table ? `${table}.` : '';
  return columns.map(([column, field, cast]) => `${of}${column}${cast ? `::${cast}` : ''} AS "${field}"`).join(', ');
}

/**
 * The select list of every column of a model's table (src/generated/rows.ts, generated from
 * prisma/schema.prisma), each under its field name with the cast its read needs: a row read
 * this way is the model's, and a column added to the model is in it without a word here.
 */
export function returningAll<Row, Insert>(t: Table<Row, Insert>, table?: string): Prisma.Sql {
  const columns = Object.entries<Column>(t.columns).map(([field, c]): ModelColumn => [c.name, field, c.read]);
  return Prisma.raw(selectAs(columns, table));
}

/**
 * `INSERT INTO <table> (<columns>) VALUES (<values>)` of one row, typed by the model's insert
 * (src/generated/rows.ts): every column without a default must be given, so a column added to
 * the model without one is a compile error where the row is made. Each value carries its
 * column's cast (an enum, jsonb); a field left out takes the column's default.
 */
export function insertInto<Row, Insert extends object>(t: Table<Row, Insert>, row: Insert): Prisma.Sql {
  const columns: string[] = [];
  const values: Prisma.Sql[] = [];
  const byField: Record<string, Column> = t.columns;
  for (const [field, value] of Object.entries(row)) {
    if (value === undefined) continue;
    const c = byField[field];
    if (!c) throw new Error(`${t.model} has no field ${field}`);
    columns.push(c.name);
    const v: unknown = c.cast === 'jsonb' ? JSON.stringify(value) : value;
    values.push(c.cast ? Prisma.sql`${v}::${Prisma.raw(c.cast)}` : Prisma.sql`${v}`);
  }
  return Prisma.sql`INSERT INTO ${Prisma.raw(t.table)} (${Prisma.raw(columns.join(', '))}) VALUES (${Prisma.join(values)})`;
}
