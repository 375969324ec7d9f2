import type { Query, RequestSpec, Transport } from './http.js';
import { Paginated, type ListOptions } from './pagination.js';
import type { Page } from './types.js';

/** Per-call options of every method. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** One path segment (an id, a name, a version number), encoded. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));

/**
 * What every resource of the client is built on: its calls go through the one transport (retries,
 * token renewal), answer with the body's data, and walk lists by cursor. The resources' methods are
 * one line each over these shapes.
 */
export class Resource {
  constructor(protected readonly http: Transport) {}

  protected async call<T>(spec: RequestSpec): Promise<T> {
    return (await this.http.request<T>(spec)).data;
  }

  /** A list at `path` with these filters: nothing is requested until it is walked. */
  protected paginate<T>(path: string, filters: Query | object = {}, options: ListOptions = {}): Paginated<T> {
    const { limit, cursor, signal } = options;
    return new Paginated<T>(async (at, sig) => this.call<Page<T>>({ method: 'GET', path, query: { ...(filters as Query), limit, cursor: at }, signal: sig }), {
      cursor,
      signal,
    });
  }

  /** `GET path` (with `query`). */
  protected read<T>(path: string, options: CallOptions, query?: Query | object): Promise<T> {
    return this.call({ method: 'GET', path, query: query as Query | undefined, signal: options.signal });
  }

  /**
   * A write: `POST`, `PATCH` or `PUT` with `body` (none when undefined). `idempotent` as in
   * `RequestSpec`: say `true` only where sending it twice does what sending it once does.
   */
  protected send<T>(method: 'POST' | 'PATCH' | 'PUT', path: string, body: unknown, options: CallOptions, idempotent?: boolean): Promise<T> {
    return this.call({ method, path, body, idempotent, signal: options.signal });
  }

  /** `DELETE path`; its answer (204) is dropped. */
  protected async deleteAt(path: string, options: CallOptions): Promise<void> {
    await this.call({ method: 'DELETE', path, signal: options.signal });
  }
}
