import { keepPreviousData, QueryClient, useInfiniteQuery, useQuery, type InfiniteData } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type FormEvent, type SetStateAction } from 'react';
import { projects, setChangeHandler, type Listing, type Query } from './api.js';
import type { Page } from './types.js';

/**
 * What the dashboard has read, kept by TanStack Query under `useAsync` and `useList`: a page opened again
 * shows what it had at once and reads it again behind it; parts of a page asking for the same thing make
 * one request. A change sent to the server (any request that is not a read) makes every page not on the
 * screen forget what it read, so none shows the state before the change; the page on the screen updates
 * itself (`setItems`, `setData`, `reload`), since it knows what it changed.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 404 or a 403 is an answer to show at once, not to ask three times more.
      retry: false,
      // A list read to its fortieth page would read all forty again on every return to the tab.
      refetchOnWindowFocus: false,
    },
  },
});
setChangeHandler(() => {
  queryClient.removeQueries({ type: 'inactive' });
  // Every change the dashboard makes may be an event of the audit log: shown, it is read again.
  void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === 'list' && String(query.queryKey[1]).endsWith('/organization/audit-log') });
});

/**
 * Runs an async loader, cached under its key (a key names one thing in the whole dashboard: `run:<project>/<id>`),
 * again when the key changes (the former data is kept meanwhile); `reload` runs it again.
 */
export function useAsync<T>(load: () => Promise<T>, key: string) {
  const query = useQuery({ queryKey: ['async', key], queryFn: load, placeholderData: keepPreviousData });
  const { refetch } = query;
  const reload = useCallback(() => refetch().then(() => undefined), [refetch]);
  const setData = useCallback(
    (data: T): void => {
      queryClient.setQueryData(['async', key], data);
    },
    [key],
  );
  return { data: query.data, error: query.error ?? (undefined as unknown), loading: query.isFetching, reload, setData };
}

/**
 * The tab's title while a page is shown: its parts from the most specific, then the product
 * (`Runs · support-bot · Sightline`); a part not known yet (still loading) is left out. Every page sets it.
 */
export function useDocumentTitle(...parts: (string | null | undefined)[]): void {
  const title = [...parts.filter((part): part is string => Boolean(part)), 'Sightline'].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** A project, loaded by id. */
export function useProject(projectId: string) {
  return useAsync(() => projects.get(projectId), `project:${projectId}`);
}

/**
 * A cursor-paginated list: the first page, then `loadMore()` follows `nextCursor` (never re-requesting
 * a page) until it is null. Changing the list's path or the query starts again; null loads nothing. A list
 * opened again shows the pages it had and reads them again behind; `reload` starts again from the first.
 */
export function useList<T>(list: Listing<T> | null, query: Query = {}, limit = 25) {
  const queryKey = useMemo(() => ['list', list?.path ?? null, JSON.stringify(query), limit], [list?.path, JSON.stringify(query), limit]); // eslint-disable-line react-hooks/exhaustive-deps
  const result = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => list!.page({ ...query, limit: String(limit), cursor: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last: Page<T>) => last.nextCursor ?? undefined,
    enabled: list !== null,
  });
  const { data, isFetching, hasNextPage, fetchNextPage } = result;
  const items = useMemo(() => data?.pages.flatMap((page) => page.items) ?? [], [data]);

  const reload = useCallback(() => void queryClient.resetQueries({ queryKey, exact: true }), [queryKey]);
  const loadMore = useCallback(() => {
    if (!isFetching && hasNextPage) void fetchNextPage();
  }, [isFetching, hasNextPage, fetchNextPage]);
  /** Changes the items shown (a record added, changed or removed here), in the cache too: the pages keep their lengths, the last takes the rest. */
  const setItems = useCallback(
    (action: SetStateAction<T[]>): void => {
      queryClient.setQueryData<InfiniteData<Page<T>, string | null>>(queryKey, (cached) => {
        if (!cached) return cached;
        const next = typeof action === 'function' ? action(cached.pages.flatMap((page) => page.items)) : action;
        let at = 0;
        const pages = cached.pages.map((page, i) => {
          const end = i === cached.pages.length - 1 ? next.length : Math.min(next.length, at + page.items.length);
          const slice = next.slice(at, end);
          at = end;
          return { ...page, items: slice };
        });
        return { ...cached, pages };
      });
    },
    [queryKey],
  );

  return { items, setItems, loading: isFetching, error: result.error ?? (null as unknown), hasMore: hasNextPage, loadMore, reload, loaded: data !== undefined };
}

/** What `useList` gives a page: the items so far, the states, and the ways to load more or again. */
export type List<T> = ReturnType<typeof useList<T>>;

/** `values` with `value` added, or taken out if it was there (what is folded, picked or expanded). */
export function toggled<T>(values: ReadonlySet<T>, value: T): Set<T> {
  const next = new Set(values);
  if (!next.delete(value)) next.add(value);
  return next;
}

/**
 * A dialog form's submission: `submit` runs `action`, busy meanwhile; a failure (a problem document) is
 * kept in `error` to show, and the form may be sent again. On success the caller closes the dialog.
 */
export function useSubmit(action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }
  return { busy, error, submit };
}
