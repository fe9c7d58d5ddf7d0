// Raw SQL whose rows stand for a model's (a booking's INSERT … RETURNING, a service read past
// Prisma): each column under the model's field name, enums cast to text as Prisma gives them
// (pg leaves an enum array as PostgreSQL's text otherwise). One list per model, checked by the
// tests that compare such a row with Prisma's own read.

/** A column, the model's field it is read as, and a cast (`text`, `text[]`) where needed. */
export type ModelColumn = readonly [column: string, field: string, cast?: string];

/** The select list of `columns`, each qualified by `table` when given. */
export function selectAs(columns: readonly ModelColumn[], table?: string): string {
  const of = table ? `${table}.` : '';
  return columns.map(([column, field, cast]) => `${of}${column}${cast ? `::${cast}` : ''} AS "${field}"`).join(', ');
}
