import type { Page } from './types.js';

/** A page as the client saw it: the envelope, plus the cursor it was requested with. */
export type PageResult<T> = Page<T> & {
  /** The cursor this page was requested with (undefined for the first page): resume from here to see it again. */
  cursor: string | undefined;
};

export interface ListOptions {
  /** Items per page, 1..100 (the server's default is 25; out-of-range values are clamped). */
  limit?: number;
  /** Start from this cursor (a `nextCursor` of an earlier walk of the same list with the same filters). */
  cursor?: string;
  signal?: AbortSignal;
}

export type PageFetcher<T> = (cursor: string | undefined, signal: AbortSignal | undefined) => Promise<Page<T>>;

/**
 * A list: `for await (const item of list)` walks every item; `list.pages()` walks the pages. Each walk
 * starts at the first page (or `cursor`), follows `nextCursor` until it is absent or null, and asks
 * for every page exactly once. Nothing is requested until iteration starts.
 */
export class Paginated<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly options: Pick<ListOptions, 'cursor' | 'signal'> = {},
  ) {}

  async *pages(): AsyncGenerator<PageResult<T>, void, undefined> {
    let cursor = this.options.cursor;
    const followed = new Set<string>();
    for (;;) {
      const page = await this.fetchPage(cursor, this.options.signal);
      yield { ...page, cursor };
      const next = page.nextCursor;
      if (next === undefined || next === null) return;
      // A server that hands back a cursor already followed would loop forever: stop instead.
      if (followed.has(next)) throw new Error(`The server returned a cursor this walk already followed (after ${followed.size + 1} pages).`);
      followed.add(next);
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item, in order (mind the memory on long lists; `max` stops early). */
  async toArray(max = Infinity): Promise<T[]> {
    return collect(this, max);
  }

  /** The first item, or undefined (requests one page). */
  async first(): Promise<T | undefined> {
    for await (const page of this.pages()) return page.items[0];
    return undefined;
  }
}

/** The first `max` items of an async iterable (all by default), stopping the walk there. */
export async function collect<T>(items: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (max <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
