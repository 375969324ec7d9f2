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
  /** Requests answered with what another request read meanwhile in the same state. */
  coalesced: number;
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
  private coalesced = 0;
  private readonly maxEntryBytes: number;

  /**
   * `maxWaitMs`: how long a request that misses waits for the same answer another request is reading in
   * the same state (a burst of first reads after a write runs the read once); past it, it reads on its own.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxWaitMs = 10_000,
  ) {
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
    return { hits: this.hits, misses: this.misses, stored: this.stored, coalesced: this.coalesced, bytes: this.bytes, entries: this.entries.size };
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
    /** Answers being read, by key: requests that miss the same key in the same state meanwhile wait for it. */
    const reading = new Map<string, Reading>();
    const leading = new WeakMap<FastifyRequest, [key: string, Reading]>();
    /** Settles what `request` was reading (with its answer, or with nothing: the waiters read on their own). */
    const settle = (request: FastifyRequest, entry: Entry | undefined) => {
      const led = leading.get(request);
      if (led === undefined) return;
      leading.delete(request);
      const [key, read] = led;
      if (reading.get(key) === read) reading.delete(key);
      read.settle(entry);
    };
    /** The key and state of a cacheable GET whose caller's check found a state, else undefined. */
    const lookup = (request: FastifyRequest): [key: string, state: string] | undefined => {
      if (request.method !== 'GET' || request.routeOptions.config.cacheable !== true) return undefined;
      const caller = callerOf(request);
      return caller?.state === undefined ? undefined : [`${caller.tenant} ${request.url}`, caller.state];
    };
    // Synchronous unless it waits for another request's reading: a hit is answered in this turn.
    const answer = (request: FastifyRequest, reply: FastifyReply, entry: Entry) => {
      served.add(request);
      reply.type(entry.contentType).send(entry.body);
    };
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const found = lookup(request);
      if (found === undefined) return done();
      const [key, state] = found;
      const entry = this.get(key, state);
      if (entry !== undefined) return answer(request, reply, entry);
      const read = reading.get(key);
      if (read === undefined || read.state !== state) {
        // This request reads it; the same reads that arrive meanwhile wait for its answer.
        const mine = new Reading(state);
        reading.set(key, mine);
        leading.set(request, [key, mine]);
        return done();
      }
      void read.answer(this.maxWaitMs).then((answered) => {
        if (answered === undefined) return done(); // the reading failed or took too long: read on its own
        this.coalesced++;
        answer(request, reply, answered);
      });
    });
    // The hooks after the answer are synchronous: they run on every request, hits included.
    app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      if (served.has(request)) return done(null, payload);
      const found = reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload)) ? lookup(request) : undefined;
      if (found === undefined) {
        settle(request, undefined);
        return done(null, payload);
      }
      const entry: Entry = {
        state: found[1],
        body: Buffer.isBuffer(payload) ? payload : Buffer.from(payload as string),
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      };
      this.set(found[0], entry.state, entry.body, entry.contentType);
      settle(request, entry);
      done(null, entry.body);
    });
    // Whichever way the reading request ends (an error, its client gone), its waiters are let go.
    app.addHook('onResponse', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      settle(request, undefined);
      done();
    });
    app.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => {
      settle(request, undefined);
      done();
    });
  }
}

/** One answer being read: the state it is read in, and the requests waiting for it. */
class Reading {
  private readonly waiting: ((entry: Entry | undefined) => void)[] = [];
  private settled = false;

  constructor(readonly state: string) {}

  /** The answer once read, or undefined if it is not (a failure) or not within `maxWaitMs`. */
  answer(maxWaitMs: number): Promise<Entry | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), maxWaitMs);
      this.waiting.push((entry) => {
        clearTimeout(timer);
        resolve(entry);
      });
    });
  }

  settle(entry: Entry | undefined): void {
    if (this.settled) return;
    this.settled = true;
    for (const wake of this.waiting.splice(0)) wake(entry);
  }
}

/** Whose answer it is (what else than the URL it may depend on) and the database's state their check found. */
export interface CacheCaller {
  tenant: string;
  state: string | undefined;
}
