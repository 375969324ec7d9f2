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

/**
 * One of the organization's collections at `path` (`/projects`, `/datasets`, …): listed with filters,
 * created, read, updated (`PATCH`) and deleted by id. `Created` is what a create answers, when that is
 * more than an item.
 */
export abstract class Collection<Item, Create, Update, Filters extends object, Created = Item> extends Resource {
  protected abstract readonly path: string;

  list(filters?: Filters, options: ListOptions = {}): Paginated<Item> {
    return this.paginate<Item>(this.path, filters, options);
  }
  create(body: Create, options: CallOptions = {}): Promise<Created> {
    return this.send('POST', this.path, body, options);
  }
  get(id: string, options: CallOptions = {}): Promise<Item> {
    return this.read(`${this.path}/${seg(id)}`, options);
  }
  update(id: string, body: Update, options: CallOptions = {}): Promise<Item> {
    return this.send('PATCH', `${this.path}/${seg(id)}`, body, options);
  }
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`${this.path}/${seg(id)}`, options);
  }
}

/**
 * A list of a project's at `/projects/{id}/<name>`, walked with filters, and one of its items by id
 * (`Detail`: what reading one gives, when that is more than a listed item).
 */
export abstract class ProjectList<Item, Filters extends object, Detail = Item> extends Resource {
  protected abstract readonly name: string;

  /** The list's path, or one item's. */
  protected at(projectId: string, id?: string): string {
    return `/projects/${seg(projectId)}/${this.name}${id === undefined ? '' : `/${seg(id)}`}`;
  }
  list(projectId: string, filters?: Filters, options: ListOptions = {}): Paginated<Item> {
    return this.paginate<Item>(this.at(projectId), filters, options);
  }
  get(projectId: string, id: string, options: CallOptions = {}): Promise<Detail> {
    return this.read(this.at(projectId, id), options);
  }
}

/** A project's collection at `/projects/{id}/<name>`: as `Collection`, each call taking the project first. */
export abstract class ProjectCollection<Item, Create, Update, Filters extends object, Created = Item> extends ProjectList<Item, Filters> {
  create(projectId: string, body: Create, options: CallOptions = {}): Promise<Created> {
    return this.send('POST', this.at(projectId), body, options);
  }
  update(projectId: string, id: string, body: Update, options: CallOptions = {}): Promise<Item> {
    return this.send('PATCH', this.at(projectId, id), body, options);
  }
  async delete(projectId: string, id: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(this.at(projectId, id), options);
  }
}
