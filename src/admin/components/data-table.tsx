// The admin area's one data table (issue 40 §5): a heading row, one row per record, the empty
// state in words, and a phone layout. On a narrow screen a table either stacks (each row a card,
// each cell named by its column, so nothing scrolls sideways: the default) or, where columns
// only make sense side by side, scrolls inside its own named, focusable region with a hint.
import type { ComponentChildren } from 'preact';
import { TimeTag } from '../http.js';

export interface Column<T> {
  /** The heading, and each cell's name when the rows stack as cards on a phone. */
  label: string;
  cell: (row: T, index: number) => ComponentChildren;
  /** A heading for screen readers only (the buttons' column). */
  quiet?: boolean;
  /** The order the rows are in, when it is this column's. */
  sorted?: 'ascending' | 'descending';
  /** The cell is the row's header (th scope=row). */
  rowHeader?: boolean;
  class?: string;
}

export interface DataTableProps<T> {
  /** The table's name for screen readers (its region's label). */
  label: string;
  rows: readonly T[];
  columns: Array<Column<T> | false | null | undefined>;
  /** What an empty table says instead, in words (never an API path). */
  empty: ComponentChildren;
  /** `scroll`: the table keeps its columns and scrolls sideways on a phone, with a hint. */
  phone?: 'stack' | 'scroll';
  caption?: ComponentChildren;
  rowClass?: (row: T) => string | undefined;
  /** The buttons of a row, in a last column with no visible heading. */
  actions?: (row: T) => ComponentChildren;
}

export function DataTable<T>(p: DataTableProps<T>) {
  if (p.rows.length === 0) return <p class="empty">{p.empty}</p>;
  const columns = p.columns.filter((c): c is Column<T> => Boolean(c));
  if (p.actions) columns.push({ label: 'Actions', quiet: true, class: 'actions', cell: p.actions });
  const scroll = p.phone === 'scroll';
  return (
    <>
      {scroll && (
        <p class="scroll-hint" aria-hidden="true">
          Scroll sideways for more columns →
        </p>
      )}
      <div class="table-scroll" role="region" aria-label={`${p.label} table`} tabindex={0}>
        <table class={scroll ? undefined : 'stack'} aria-label={p.label}>
          {p.caption && <caption>{p.caption}</caption>}
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" aria-sort={c.sorted}>
                  {c.quiet ? <span class="muted">{c.label}</span> : c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((row, i) => (
              <tr class={p.rowClass?.(row)}>
                {columns.map((c) => {
                  // A cell names its column only where the rows stack as cards (the CSS reads it there).
                  const label = c.quiet || scroll ? undefined : c.label;
                  return c.rowHeader ? (
                    <th scope="row" data-label={label} class={c.class}>
                      {c.cell(row, i)}
                    </th>
                  ) : (
                    <td data-label={label} class={c.class}>
                      {c.cell(row, i)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * A path, URL or key in code type that may break only after its separators (/ . _ - ?), never
 * inside a word, when it is wider than its cell.
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[/._?&=-])/);
  return (
    <code>
      {parts.map((part, i) => (
        <>
          {i > 0 && <wbr />}
          {part}
        </>
      ))}
    </code>
  );
}

/** A record's events (a booking's, a payment's): time, type and id, and what the record was then. */
export function EventTable<E extends { id: string; type: string; createdAt: Date; data: unknown }>(p: {
  events: readonly E[];
  zone: string;
  then: Column<E>;
}) {
  return (
    <DataTable
      label="Events"
      rows={p.events}
      empty="No events."
      columns={[
        { label: 'Time', cell: (e) => <TimeTag at={e.createdAt} zone={p.zone} /> },
        { label: 'Type', cell: (e) => <code>{e.type}</code> },
        { label: 'Event id', cell: (e) => <code>{e.id}</code> },
        p.then,
      ]}
    />
  );
}
