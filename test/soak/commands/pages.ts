// Pages with cursors of other companies (docs/api.md, Pagination; docs/graphql.md, Lists).
import { Mismatch } from '../checker.js';
import { brief, cursorOf, unknownId, type Answer, type Co } from '../world.js';
import { nth, Step, type CoModel, type Real } from './step.js';

// ---------------------------------------------------------------------------------------------
// Pages with cursors of other companies (docs/api.md, Pagination; docs/graphql.md, Lists): a
// cursor is a place in the list's order. In an order by id, a cursor's id places it whatever
// record it names, so another company's cursor is answered as the model says an id of that value
// is (the company's own records beyond it); in another order the cursor's record has no place in
// this company's list, so another company's cursor must answer exactly as a cursor of an id that
// names no record at all.

const RESOURCES = ['bookings', 'employees', 'services', 'customers', 'closures'] as const;
type Resource = (typeof RESOURCES)[number];
const ORDERS: Record<Resource, string[]> = {
  bookings: ['NEWEST_FIRST', 'OLDEST_FIRST', 'START_TIME', 'START_TIME_DESC'],
  closures: ['NEWEST_FIRST', 'OLDEST_FIRST', 'START_TIME', 'START_TIME_DESC'],
  employees: ['NEWEST_FIRST', 'OLDEST_FIRST', 'NAME'],
  services: ['NEWEST_FIRST', 'OLDEST_FIRST', 'NAME'],
  customers: ['NEWEST_FIRST', 'OLDEST_FIRST', 'NAME'],
};

/**
 * One list of the company (one it has records of) walked from a cursor of another company's
 * record: REST's `?cursor=`, and GraphQL's `after:` and `before:` in every order of the list.
 */
export class Pages extends Step {
  readonly name = 'pages';
  constructor(
    c: number,
    probe: number,
    readonly other: number,
    readonly resource: number,
    readonly size: number,
  ) {
    super(c, probe);
  }
  /** A list with records: an empty one says nothing of where a cursor put the page. */
  protected override applies(cm: CoModel) {
    return RESOURCES.some((x) => cm[x].length > 0);
  }
  protected async act(cm: CoModel, co: Co, r: Real) {
    const { api, checker } = r.server;
    const resource = nth(
      RESOURCES.filter((x) => cm[x].length > 0),
      this.resource,
    );
    const other = nth([...r.cos.filter((x) => x !== co), ...r.server.canaries], this.other);
    const idsIn = async (x: Co) =>
      (
        (await checker.pools[x.mode].query(`SELECT id FROM ${resource} WHERE company_id = $1`, [x.id])).rows as Array<{
          id: string;
        }>
      )
        .map((row) => row.id)
        .sort();
    const theirs = await idsIn(other);
    // A cursor the other company was given for one of its records (with none, its own id).
    const foreignId = theirs.length > 0 ? nth(theirs, this.probe) : other.id;
    const foreign = cursorOf(foreignId);
    const mine = await idsIn(co);
    const n = this.size;
    const fail = (what: string, got: unknown, want: unknown) =>
      new Mismatch(
        `${resource} ${what} with ${other.label}'s cursor answered ${JSON.stringify(got)}, the model ${JSON.stringify(want)}`,
      );

    // REST: newest first, the records with an id below the cursor's.
    checker.stats.comparisons++;
    const rest = await api.call(co, 'GET', `/api/v1/${resource}?limit=${n}&cursor=${foreign}`);
    const below = mine.filter((id) => id < foreignId).reverse();
    const want = {
      ids: below.slice(0, n),
      pagination: {
        limit: n,
        hasMore: below.length > n,
        nextCursor: below.length > n ? cursorOf(below[n - 1]!) : null,
      },
    };
    const got =
      rest.status === 200
        ? { ids: rest.body.data.map((x: { _id: string }) => x._id), pagination: rest.body.meta.pagination }
        : brief(rest);
    if (JSON.stringify(got) !== JSON.stringify(want)) throw fail('via REST', got, want);

    for (const order of ORDERS[resource])
      for (const backward of [false, true]) {
        checker.stats.comparisons++;
        const page = (cursor: string) =>
          api.gql(
            co,
            `query($n: Int, $c: String) { ${resource}(${backward ? 'last: $n, before: $c' : 'first: $n, after: $c'}, orderBy: ${order}) {
              edges { cursor node { _id } } pageInfo { hasNextPage hasPreviousPage } } }`,
            { n, c: cursor },
          );
        const a = await page(foreign);
        const what = `${order}${backward ? ' backward' : ''}`;
        if (order === 'NEWEST_FIRST' || order === 'OLDEST_FIRST') {
          const inOrder = order === 'NEWEST_FIRST' ? [...mine].reverse() : mine;
          const beyond = (id: string) => (order === 'NEWEST_FIRST' ? id < foreignId : id > foreignId);
          const list = backward ? inOrder.filter((id) => id !== foreignId && !beyond(id)) : inOrder.filter(beyond);
          // The flag of the direction walked (Relay leaves the other one to the server).
          const want = {
            ids: backward ? list.slice(Math.max(0, list.length - n)) : list.slice(0, n),
            more: list.length > n,
          };
          const conn = a.body?.data?.[resource];
          const got = conn
            ? {
                ids: conn.edges.map((e: { node: { _id: string } }) => e.node._id),
                more: backward ? conn.pageInfo.hasPreviousPage : conn.pageInfo.hasNextPage,
              }
            : brief(a);
          const cursors =
            !conn ||
            conn.edges.every((e: { cursor: string; node: { _id: string } }) => e.cursor === cursorOf(e.node._id));
          if (JSON.stringify(got) !== JSON.stringify(want) || !cursors) throw fail(what, got, want);
          continue;
        }
        const b = await page(cursorOf(unknownId()));
        const seen = (x: Answer) =>
          JSON.stringify({
            status: x.status,
            data: x.body?.data ?? null,
            errors: (x.body?.errors ?? []).map(
              (e: { message: string; extensions?: { code?: string; details?: unknown } }) => [
                e.message,
                e.extensions?.code,
                e.extensions?.details,
              ],
            ),
          });
        if (seen(a) !== seen(b))
          throw new Mismatch(
            `${resource} ${what}: ${other.label}'s cursor is not answered as a cursor of no record\n  theirs:  ${seen(a)}\n  unknown: ${seen(b)}`,
          );
      }
    r.server.checker.stats.outcome(mine.length > 0 && theirs.length > 0 ? 'pages' : 'pages-empty');
    return [co, other];
  }
  protected args() {
    return `list#${this.resource}, ${this.size} a page, other#${this.other}`;
  }
}
