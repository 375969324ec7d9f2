import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A GET whose 200 answer depends only on the URL, the caller's organization and what the database
     * holds (no clock, no caller's own settings): it may be answered again from `ReadCache` while the
     * database's state is the one it was answered in.
     */
    cacheable?: boolean;
  }
}

interface Entry {
  /** The database's state the answer was read in (`Principal.readState`). */
  state: string;
  body: Buffer;
  contentType: string;
}

/** What a cache has done since it was made: for the bench's report and the suites. */
export interface ReadCacheStats {
  hits: number;
  misses: number;
  stored: number;
  bytes: number;
  entries: number;
}

/**
 * Answers of cacheable reads (`config.cacheable`), kept by organization and URL with the database's state
 * they were read in, and sent again while a later request finds the database in that same state: the
 * state is read in the credential's own query, so a request that finds it unchanged is answered without
 * another query, and any write in between (on this instance or another sharing the database) makes the
 * state differ and the answer be read afresh. Bounded in bytes, the least recently used dropped first; an
 * answer larger than a quarter of the bound is not kept.
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private stored = 0;
  private readonly maxEntryBytes: number;

  constructor(private readonly maxBytes: number) {
    this.maxEntryBytes = Math.floor(maxBytes / 4);
  }

  /** The answer kept for `key` in `state`; an answer kept in another state is dropped. */
  get(key: string, state: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.drop(key, entry);
    if (entry.state !== state) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Kept again as the most recently used (a Map iterates in insertion order).
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    return entry;
  }

  set(key: string, state: string, body: Buffer, contentType: string): void {
    if (body.length > this.maxEntryBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    while (this.bytes + body.length > this.maxBytes) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.drop(oldestKey, oldest);
    }
    this.entries.set(key, { state, body, contentType });
    this.bytes += body.length;
    this.stored++;
  }

  stats(): ReadCacheStats {
    return { hits: this.hits, misses: this.misses, stored: this.stored, bytes: this.bytes, entries: this.entries.size };
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }

  /**
   * The cache's two hooks, for a plugin whose routes are authenticated by an earlier onRequest hook (the
   * /v1 plugin): a cacheable GET whose state holds an answer is answered at once, before validation and
   * the work queue (its URL was valid when it was answered, and it needs no query); a cacheable GET's 200
   * is kept with the state its request found.
   */
  register(app: FastifyInstance, callerOf: (request: FastifyRequest) => CacheCaller | undefined): void {
    if (this.maxBytes <= 0) return;
    const served = new WeakSet<FastifyRequest>();
    /** The key and state of a cacheable GET whose caller's check found a state, else undefined. */
    const lookup = (request: FastifyRequest): [key: string, state: string] | undefined => {
      if (request.method !== 'GET' || request.routeOptions.config.cacheable !== true) return undefined;
      const caller = callerOf(request);
      return caller?.state === undefined ? undefined : [`${caller.tenant} ${request.url}`, caller.state];
    };
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const found = lookup(request);
      const entry = found && this.get(found[0], found[1]);
      if (entry === undefined) return;
      served.add(request);
      return reply.type(entry.contentType).send(entry.body);
    });
    app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode !== 200 || typeof payload !== 'string' || served.has(request)) return payload;
      const found = lookup(request);
      if (found === undefined) return payload;
      const body = Buffer.from(payload);
      this.set(found[0], found[1], body, String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'));
      return body;
    });
  }
}

/** Whose answer it is (what else than the URL it may depend on) and the database's state their check found. */
export interface CacheCaller {
  tenant: string;
  state: string | undefined;
}
