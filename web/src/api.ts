/**
 * The dashboard's only way to the server: the public /v1 API, with the session cookie (same origin).
 * Every error the server sends is a problem document; it becomes an ApiError carrying its title and
 * detail, which the pages show as they are.
 */

export interface FieldError {
  pointer?: string;
  parameter?: string;
  detail: string;
}

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

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  limit: number;
}

type Query = Record<string, string | number | boolean | null | undefined | string[]>;

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

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
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
  if (response.status === 204 || response.status === 304) return undefined as T;
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    const problem = (json ?? {}) as { title?: string; detail?: string; errors?: FieldError[]; type?: string };
    if (response.status === 401) onUnauthorized();
    throw new ApiError(response.status, problem.title ?? `HTTP ${response.status}`, problem.detail ?? '', problem.errors ?? [], problem.type ?? '');
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', `/v1${path}${queryString(query)}`),
  post: <T>(path: string, body?: unknown) => request<T>('POST', `/v1${path}`, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', `/v1${path}`, body),
  put: <T>(path: string, body: unknown) => request<T>('PUT', `/v1${path}`, body),
  del: (path: string) => request<void>('DELETE', `/v1${path}`),
  /** Ends the dashboard session (the server revokes it and clears the cookie). */
  signOut: () => request<void>('POST', '/auth/logout'),
};

/** Human text for any error thrown by the API client (or anything else). */
export function describeError(error: unknown): { title: string; detail: string; errors: FieldError[] } {
  if (error instanceof ApiError) return { title: error.title, detail: error.detail, errors: error.errors };
  return { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error), errors: [] };
}
