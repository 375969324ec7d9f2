/**
 * The API client's machinery: one request over fetch with the session cookie, every error the server
 * sends as an ApiError (a problem document's title and detail), the query string, and the building
 * blocks `api.ts` makes its typed endpoint functions of (a listing, a collection, a path's segment).
 */
import type { FieldError, Page, ProblemDocument } from '../types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly type = '',
  ) {
    super(detail || title);
  }
}

/** A query as the pages hold it (the URL's filters are strings; the server validates them). */
export type Query = Record<string, string | number | boolean | null | undefined | readonly string[]>;

/** `?a=1&tag=x&tag=y`, skipping empty values. */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Called when the session has ended (401): the app shows the sign-in page. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

let onChanged: () => void = () => {};
/** Called after every request that succeeded and was not a read (the dashboard's cache forgets what it may have changed). */
export function setChangeHandler(handler: () => void): void {
  onChanged = handler;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'Network error', 'The server could not be reached. Check your connection and retry.');
  }
  if (response.ok && method !== 'GET') onChanged();
  if (response.status === 204 || response.status === 304) return undefined as T;
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    const problem = (json ?? {}) as Partial<ProblemDocument>;
    if (response.status === 401) onUnauthorized();
    throw new ApiError(response.status, problem.title ?? `HTTP ${response.status}`, problem.detail ?? '', problem.errors ?? [], problem.type ?? '');
  }
  return json as T;
}

/**
 * Streams an export (`GET …/runs/export` or `…/traces/export`), calling `onChunk` with each piece of
 * text as it arrives; ends when the response does, or when `signal` aborts. Errors before the body are
 * the API's problems, as for every call.
 */
export async function streamExport(
  projectId: string,
  what: 'runs' | 'traces',
  query: Query,
  onChunk: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`/v1${projectPath(projectId)}/${what}/export${queryString(query)}`, { credentials: 'same-origin', signal });
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => ({}))) as Partial<ProblemDocument>;
    if (response.status === 401) onUnauthorized();
    throw new ApiError(response.status, problem.title ?? `HTTP ${response.status}`, problem.detail ?? '', problem.errors ?? [], problem.type ?? '');
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onChunk(value);
  }
}

/** Human text for any error thrown by the API client (or anything else). */
export function describeError(error: unknown): { title: string; detail: string; errors: FieldError[] } {
  if (error instanceof ApiError) return { title: error.title, detail: error.detail, errors: error.errors };
  return { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error), errors: [] };
}

export const get = <T>(path: string, query?: Query) => request<T>('GET', `/v1${path}${queryString(query)}`);
export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', `/v1${path}`, body);
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', `/v1${path}`, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', `/v1${path}`, body);
export const del = (path: string) => request<void>('DELETE', `/v1${path}`);
export const seg = (value: string | number) => encodeURIComponent(String(value));

/** A cursor-paginated list: its path (what identifies it) and how to fetch one page of it. */
export interface Listing<T> {
  readonly path: string;
  page(query: Query): Promise<Page<T>>;
}
export const listing = <T>(path: string): Listing<T> => ({ path, page: (query) => get<Page<T>>(path, query) });

/** A collection at the top of the API: listed, created, and read, changed or deleted by id. */
export function collection<T, Create, Update>(base: string) {
  const path = (id: string) => `${base}/${seg(id)}`;
  return {
    list: listing<T>(base),
    get: (id: string) => get<T>(path(id)),
    create: (body: Create) => post<T>(base, body),
    update: (id: string, body: Update) => patch<T>(path(id), body),
    delete: (id: string) => del(path(id)),
  };
}

export const projectPath = (projectId: string) => `/projects/${seg(projectId)}`;

/**
 * A collection inside a project (`/projects/{id}/<name>`): listed, created, and read, changed or deleted by
 * id. `Created` is what a create answers, when it says more than the record (a monitor's secret).
 */
export function projectCollection<T, Create, Update, Created = T>(name: string) {
  const base = (projectId: string) => `${projectPath(projectId)}/${name}`;
  const path = (projectId: string, id: string) => `${base(projectId)}/${seg(id)}`;
  return {
    list: (projectId: string) => listing<T>(base(projectId)),
    get: (projectId: string, id: string) => get<T>(path(projectId, id)),
    create: (projectId: string, body: Create) => post<Created>(base(projectId), body),
    update: (projectId: string, id: string, body: Update) => patch<T>(path(projectId, id), body),
    delete: (projectId: string, id: string) => del(path(projectId, id)),
  };
}
