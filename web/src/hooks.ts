import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { projects, type Listing, type Query } from './api.js';

/** Runs an async loader when its key changes; `reload` runs it again. */
export function useAsync<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    try {
      const data = await load();
      if (mine === generation.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === generation.current) setState({ error, loading: false });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  useEffect(() => {
    void run();
  }, [run]);
  return { ...state, reload: run, setData: (data: T) => setState({ data, loading: false }) };
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
 * a page) until it is null. Changing the list's path or the query starts again; null loads nothing.
 */
export function useList<T>(list: Listing<T> | null, query: Query = {}, limit = 25) {
  const key = `${list?.path ?? null}?${JSON.stringify(query)}&${limit}`;
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const busy = useRef(false);

  const fetchPage = useCallback(
    async (after: string | null, replace: boolean) => {
      if (list === null) return;
      const mine = generation.current;
      busy.current = true;
      setLoading(true);
      setError(null);
      try {
        const page = await list.page({ ...query, limit: String(limit), cursor: after ?? undefined });
        if (mine !== generation.current) return;
        setItems((previous) => (replace ? page.items : [...previous, ...page.items]));
        setCursor(page.nextCursor ?? null);
        setDone(!page.nextCursor);
      } catch (e) {
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
  );

  const reload = useCallback(() => {
    generation.current++;
    busy.current = false;
    setItems([]);
    setCursor(null);
    setDone(false);
    void fetchPage(null, true);
  }, [fetchPage]);

  useEffect(() => {
    reload();
  }, [reload]);

  const loadMore = useCallback(() => {
    if (busy.current || done || cursor === null) return;
    void fetchPage(cursor, false);
  }, [cursor, done, fetchPage]);

  return { items, setItems, loading, error, hasMore: !done && cursor !== null, loadMore, reload, loaded: done || cursor !== null || items.length > 0 };
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
