import type { CSSProperties, ReactNode } from 'react';
import type { List } from '../hooks.js';
import { ScrollArea } from './scroll-area.js';
import { Empty, ErrorBox, Loading, LoadMore } from './ui.js';

/** A list's empty state in words: an `EmptyList` of what it holds, one and many, with `none` saying how the first one comes. */
export interface EmptyWords {
  one: string;
  many: string;
  filtered?: boolean;
  whenFiltered?: ReactNode;
  none: ReactNode;
}

const inWords = (empty: ReactNode | EmptyWords): empty is EmptyWords => typeof empty === 'object' && empty !== null && 'many' in empty;

interface PagedProps<T> {
  list: List<T>;
  /** Said while the first page loads (by default "Loading <many>…" of the empty state's words). */
  loadingLabel?: string;
  /** Shown when the list has no item: an `<Empty>` worded for the filters in force, or the words of an `EmptyList`. */
  empty: ReactNode | EmptyWords;
  /** Whether trying again may help with this error (default: always). */
  retryable?: (error: unknown) => boolean;
  /** Loads the next page when "Load more" scrolls into view. */
  auto?: boolean;
  /** Shown under the last page. */
  end?: ReactNode;
}

/**
 * The states around a cursor-paginated list, the same on every page: the first page's error (with Retry) in
 * place of the list, "Loading…", the empty state, then the rows; a later page's error under them (its Retry
 * asks for that page again), "Load more" while there is more.
 */
export function Paged<T>({ list, loadingLabel, empty, retryable = () => true, auto, end, children }: PagedProps<T> & { children: (items: T[]) => ReactNode }) {
  const { items, error } = list;
  const words = inWords(empty) ? empty : null;
  const whenEmpty = words ? (
    <EmptyList one={words.one} many={words.many} filtered={words.filtered ?? false} whenFiltered={words.whenFiltered}>
      {words.none}
    </EmptyList>
  ) : (
    (empty as ReactNode)
  );
  return (
    <>
      {error !== null && items.length === 0 ? (
        <ErrorBox error={error} onRetry={retryable(error) ? list.reload : undefined} />
      ) : items.length === 0 && list.loading ? (
        <Loading label={loadingLabel ?? `Loading ${words?.many ?? 'items'}…`} />
      ) : items.length === 0 && list.loaded ? (
        whenEmpty
      ) : items.length > 0 ? (
        children(items)
      ) : null}
      {error !== null && items.length > 0 && <ErrorBox error={error} onRetry={list.loadMore} />}
      <LoadMore auto={auto} hasMore={list.hasMore && error === null} loading={list.loading} onLoadMore={list.loadMore} />
      {end !== undefined && !list.hasMore && items.length > 0 && !list.loading && end}
    </>
  );
}

/**
 * A list's empty state: with filters in force, "No <one> matches these filters" (and `whenFiltered`);
 * else "No <many> yet", with `children` saying how the first one comes.
 */
export function EmptyList({
  one,
  many,
  filtered,
  whenFiltered = 'Change or clear the filters.',
  children,
}: {
  one: string;
  many: string;
  filtered: boolean;
  whenFiltered?: ReactNode;
  children: ReactNode;
}) {
  if (filtered) return <Empty title={`No ${one} matches these filters`}>{whenFiltered}</Empty>;
  return <Empty title={`No ${many} yet`}>{children}</Empty>;
}

/** A column heading: its text, and classes such as `num` or `hide-narrow` (for the heading only). */
export type Column = string | { label: ReactNode; className?: string };
/** A column of numbers (right-aligned). */
export const num = (label: string, className = ''): Column => ({ label, className: `num ${className}`.trim() });
/** A column hidden on narrow screens. */
export const narrow = (label: string): Column => ({ label, className: 'hide-narrow' });

/**
 * A paged list as a table: the headings, a row per item (`row` returns the `<tr>` with its key), and the
 * states of `Paged` around it. `label` names the table; `caption` does too, as a caption for screen readers.
 */
export function PagedTable<T>({
  columns,
  row,
  label,
  caption,
  className,
  style,
  ...paged
}: PagedProps<T> & {
  columns: Column[];
  row: (item: T) => ReactNode;
  label?: string;
  caption?: string;
  className?: string;
  style?: CSSProperties;
}) {
  return (
    <Paged {...paged}>
      {(items) => (
        <ScrollArea className="table-wrap" style={style} label={label ?? caption ?? 'Table'}>
          <table aria-label={label} className={className}>
            {caption && <caption className="sl-sr-only">{caption}</caption>}
            <thead>
              <tr>
                {columns.map((column, i) =>
                  typeof column === 'string' ? (
                    <th key={i} scope="col">
                      {column}
                    </th>
                  ) : (
                    <th key={i} scope="col" className={column.className}>
                      {column.label}
                    </th>
                  ),
                )}
              </tr>
            </thead>
            <tbody>{items.map((item) => row(item))}</tbody>
          </table>
        </ScrollArea>
      )}
    </Paged>
  );
}
