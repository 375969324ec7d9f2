/** Pieces shared by the projects, runs and run pages (and the run vocabulary the monitor form uses too). */
import { Fragment, type ReactNode } from 'react';
import { ApiError } from '../../api.js';
import { ErrorBox, Loading } from '../../components/ui.js';
import { Link } from '../../router.js';
import type { RunKind, RunStatus } from '../../types.js';

// Every value of the wire types, in the order the selects offer them: a value the server adds or drops
// fails the type-check here.
const STATUSES: Record<RunStatus, true> = { running: true, succeeded: true, failed: true };
const KINDS: Record<RunKind, true> = { llm: true, chain: true, tool: true, retriever: true, embedding: true, agent: true, custom: true };
export const RUN_STATUSES = Object.keys(STATUSES) as RunStatus[];
export const RUN_KINDS = Object.keys(KINDS) as RunKind[];

/** The page title hook, here too for the run page, which imports it from this module. */
export { useDocumentTitle } from '../../hooks.js';

/** Where the page sits: links up to the projects list and the project. */
export function Breadcrumbs({ items }: { items: { label: ReactNode; to?: string }[] }) {
  return (
    <nav aria-label="Breadcrumb" className="sl-breadcrumbs">
      <ol>
        {items.map((item, i) => (
          <Fragment key={i}>
            <li>{item.to ? <Link to={item.to}>{item.label}</Link> : <span aria-current="page">{item.label}</span>}</li>
          </Fragment>
        ))}
      </ol>
    </nav>
  );
}

const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/**
 * A record's page until its record is there: the breadcrumbs, then the load's error (with Retry unless
 * `retryable` says no: by default, unless the record is not found) and `back`, the way back to its list;
 * or, while it loads, `label`.
 */
export function Pending({
  crumbs,
  state,
  label,
  back,
  retryable = (error) => !isNotFound(error),
}: {
  crumbs: { label: ReactNode; to?: string }[];
  state: { error?: unknown; reload: () => void };
  label: string;
  back?: ReactNode;
  retryable?: (error: unknown) => boolean;
}) {
  return (
    <>
      <Breadcrumbs items={crumbs} />
      {state.error ? (
        <>
          <ErrorBox error={state.error} onRetry={retryable(state.error) ? state.reload : undefined} />
          {back && <p>{back}</p>}
        </>
      ) : (
        <Loading label={label} />
      )}
    </>
  );
}

const searchKey = (projectId: string) => `sightline:runs-search:${projectId}`;

/** Remembers a project's runs-list query for this tab, so "back to the runs" keeps the filters. */
export function rememberRunsSearch(projectId: string, search: string): void {
  try {
    sessionStorage.setItem(searchKey(projectId), search);
  } catch {
    // storage unavailable: the link just goes to the unfiltered list
  }
}

/** The runs-list path of a project, with the query last used in this tab. */
export function runsListPath(projectId: string): string {
  let search = '';
  try {
    search = sessionStorage.getItem(searchKey(projectId)) ?? '';
  } catch {
    // ignore
  }
  return `/projects/${projectId}/runs${search ? `?${search}` : ''}`;
}

/**
 * Changes the URL's query in place (a new history entry unless `replace`, so Back undoes it) without the scroll to the
 * top that a page navigation does: the router re-reads the location on popstate.
 */
export function setQuery(path: string, params: URLSearchParams, options: { replace?: boolean } = {}): void {
  const text = params.toString();
  const url = `${path}${text ? `?${text}` : ''}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
