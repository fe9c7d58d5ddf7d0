// Every list answers pages (`meta.pagination: { limit, hasMore, nextCursor }`, docs/api.md
// "Pagination"). A List fetches them lazily: iterate it for every item across pages, or ask for
// one page.

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
  limit: number;
  requestId: string;
}

export type FetchPage<T> = (cursor: string | undefined) => Promise<Page<T>>;

export class List<T> implements AsyncIterable<T> {
  readonly #fetchPage: FetchPage<T>;
  readonly #cursor: string | undefined;

  constructor(fetchPage: FetchPage<T>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  /** One page: the first, or the one at `cursor` (a previous page's `nextCursor`). */
  page(cursor: string | undefined = this.#cursor): Promise<Page<T>> {
    return this.#fetchPage(cursor);
  }

  /** Every page in turn, following `nextCursor` until `hasMore` is false. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /** Every item across every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item collected into an array; refuses to grow past `max` (default 10 000) items. */
  async toArray(max = 10_000): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) {
      if (all.length >= max) throw new RangeError(`the list has more than ${max} items`);
      all.push(item);
    }
    return all;
  }
}
