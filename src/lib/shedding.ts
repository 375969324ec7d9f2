import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { whileOpen } from './gate.js';
import { sendProblem } from './http.js';
import { type Problem, problems } from './problems.js';
import { type Leave, QueueRefused, WorkQueue } from './work-queue.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health checks: never shed nor counted, so a load balancer always gets an answer. */
    healthCheck?: boolean;
  }
}

/** Why new requests are refused: the instance is draining, or one of its bounds is passed. */
export type Refusal = 'closing' | 'in-flight' | 'event-loop' | 'heap' | 'queue';

export interface SheddingOptions {
  /** Requests in progress at once; the next one is refused. */
  maxInFlight: number;
  /** Event-loop delay (ms) past which requests are refused; 0: never. */
  maxEventLoopDelayMs: number;
  /** Heap in use (bytes, at the last sample) past which requests are refused; 0: never. */
  maxHeapUsedBytes: number;
  /** Requests whose handlers run at once (the work queue's places). */
  concurrency: number;
  /** How long a request may wait for a place before it is refused. */
  maxQueueMs: number;
  problemBase: string;
}

/**
 * Share of V8's heap limit (`heap_size_limit`: the old-space limit, 160 MB under `npm start`, plus
 * the young generation: 208 MB in all) past which requests are refused.
 */
export const HEAP_SHED_SHARE = 0.8;

/** The heap bound for this process: `HEAP_SHED_SHARE` of its heap limit. */
export function heapShedBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit * HEAP_SHED_SHARE);
}

const OVERLOADED_RETRY_SECONDS = 2;
// A draining instance is going away: the retry belongs on a new connection (to another instance).
const CLOSING_RETRY_SECONDS = 1;
const LOG_EVERY_MS = 5_000;

/**
 * Load shedding: one onRequest hook, before authentication and before any body is read, refuses a
 * new request with a 503 `service-unavailable` problem (and `Retry-After`) while the instance is
 * closing, has `maxInFlight` requests in progress, lags, or runs short of heap. Health checks are
 * never shed; `/readyz` reports `refusal()` itself.
 *
 * The event loop lags in two ways, and both count. Sustained: `@fastify/under-pressure`'s mean delay
 * over its last sample interval (it also samples the heap). In one turn: requests read in a turn of
 * the loop that has already run past the bound (a burst of synchronous work, such as SQLite queries,
 * read at once) have waited that long already; the sample would only see it once the turn is over.
 * Both measure how long network input waits for the loop, so they apply to requests read off a
 * connection: one made in process (`inject`) waited for nothing.
 */
export class LoadShedder {
  private inFlight = 0;
  private closing = false;
  private watchingLoop = false;
  private lastTick = performance.now();
  private sample: () => { eventLoopDelay: number; heapUsed: number } = () => ({ eventLoopDelay: 0, heapUsed: 0 });
  private readonly problems: Record<Refusal, Problem>;
  private readonly releasers = new WeakMap<Socket, Set<() => void>>();
  private shedSinceLog = 0;
  private lastLogAt = 0;
  /** The requests being worked on and those waiting for their turn (see `takeTurn`). */
  readonly queue: WorkQueue;

  constructor(private readonly options: SheddingOptions) {
    // Built once: shedding must stay cheap however many requests it refuses.
    const overloaded = (why: string) =>
      problems.unavailable(`The service is overloaded (${why}). Retry after ${OVERLOADED_RETRY_SECONDS} seconds.`, OVERLOADED_RETRY_SECONDS);
    this.problems = {
      closing: problems.unavailable('This instance is shutting down. Retry on a new connection.', CLOSING_RETRY_SECONDS, { connection: 'close' }),
      'in-flight': overloaded('too many requests in progress'),
      'event-loop': overloaded('it is falling behind'),
      heap: overloaded('it is running short of memory'),
      queue: overloaded(`requests wait more than ${options.maxQueueMs} ms for their turn`),
    };
    this.queue = new WorkQueue(options.concurrency, options.maxQueueMs);
  }

  /** Registers the sampler and the shedding hook; call before any other onRequest hook that does work. */
  async register(app: FastifyInstance): Promise<void> {
    const bound = this.options.maxEventLoopDelayMs;
    // Without thresholds the plugin adds no hook of its own: it only samples, and this class decides.
    // It reports an infinite delay when the loop did not turn at all in an interval; an interval as
    // long as the bound makes that a block at least as long as the bound, not any synchronous request
    // (a 1,000-run batch) that outlasts a shorter interval.
    await app.register(underPressure, { sampleInterval: bound || 1000 });
    this.sample = () => app.memoryUsage();
    if (bound > 0) {
      // A tick per tenth of the bound: a turn is measured from its start to within that much.
      const ticker = setInterval(() => (this.lastTick = performance.now()), Math.max(10, bound / 10));
      ticker.unref();
      app.addHook('onClose', (_instance, done) => {
        clearInterval(ticker);
        done();
      });
    }
    app.addHook('onReady', (done) => {
      // Start-up (compiling schemas and routes) blocks the loop too, and is no load: the sampled
      // delay counts from the first interval that starts once the app is ready.
      setTimeout(() => (this.watchingLoop = true), 2 * (bound || 1000)).unref();
      done();
    });
    app.addHook('preClose', (done) => {
      this.closing = true;
      done();
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config.healthCheck) return done();
      const refusal = this.refusal(request);
      if (refusal) {
        this.shed(request, reply, refusal);
        return;
      }
      this.admit(request, reply);
      done();
    });
    app.addHook('preHandler', async (request, reply) => {
      if (request.routeOptions.config.healthCheck) return;
      if (await this.takeTurn(request, reply)) return;
      // Sent here rather than thrown: the error handler logs every 503, and overload is logged
      // once in a while (`noteOverload`).
      this.shed(request, reply, 'queue');
      return reply;
    });
    // The place is given back once the handler has answered (a streamed answer streams on without it).
    app.addHook('onSend', (request, _reply, payload, done) => {
      leaveWorkQueue(request);
      done(null, payload);
    });
    app.addHook('onResponse', (request, _reply, done) => {
      leaveWorkQueue(request);
      done();
    });
  }

  /**
   * Waits for a place in the work queue, once the request is read, authenticated and validated: its
   * handler runs with at most `concurrency` others. False for a request that waited more than
   * `maxQueueMs`: it is refused with the 503 `queue` problem. One whose client goes away meanwhile leaves the queue.
   * The place is given back when the handler's answer is sent (`onSend`), or earlier by the handler
   * itself before it waits on something outside (`leaveWorkQueue`).
   */
  private async takeTurn(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const response = reply.raw;
    // A client already gone takes the waiting path, which answers it as gone.
    let leave = response.destroyed ? null : this.queue.enterAtOnce();
    if (!leave) {
      try {
        leave = await whileOpen(response, (signal) => this.queue.enter(signal));
      } catch (error) {
        if (!(error instanceof QueueRefused)) throw error;
        if (error.reason === 'aborted') throw problems.clientGone();
        return false;
      }
    }
    places.set(request, leave);
    // A hijacked answer (written by its handler on the socket) runs no `onSend`: its place is given
    // back when the response closes. Any other is given back when its handler answers, even if the
    // client left before: the handler is still working until then.
    response.once('close', () => {
      if (reply.sent && !response.writableEnded) leaveWorkQueue(request);
    });
    return true;
  }

  /** Why `request` would be refused right now, or null. */
  refusal(request: FastifyRequest): Refusal | null {
    if (this.closing) return 'closing';
    if (this.inFlight >= this.options.maxInFlight) return 'in-flight';
    const { eventLoopDelay, heapUsed } = this.sample();
    if (this.lagging(eventLoopDelay) && request.raw.socket instanceof Socket) return 'event-loop';
    if (this.options.maxHeapUsedBytes > 0 && heapUsed > this.options.maxHeapUsedBytes) return 'heap';
    return null;
  }

  private lagging(sampledDelay: number): boolean {
    const bound = this.options.maxEventLoopDelayMs;
    return bound > 0 && ((this.watchingLoop && sampledDelay > bound) || performance.now() - this.lastTick > bound);
  }

  /** The 503 problem for a refusal. */
  problem(refusal: Refusal): Problem {
    return this.problems[refusal];
  }

  private shed(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): void {
    // Draining is announced once already ("shutting down"); overload is worth a line now and then.
    if (refusal !== 'closing') this.noteOverload(request, refusal);
    sendProblem(reply, request, this.problems[refusal], this.options.problemBase);
  }

  private noteOverload(request: FastifyRequest, refusal: Refusal): void {
    this.shedSinceLog++;
    const now = Date.now();
    if (now - this.lastLogAt < LOG_EVERY_MS) return;
    const { eventLoopDelay, heapUsed } = this.sample();
    request.log.warn(
      {
        refusal,
        shed: this.shedSinceLog,
        inFlight: this.inFlight,
        eventLoopDelayMs: Math.round(eventLoopDelay),
        queue: this.queue.usage,
        heapUsedMb: Math.round(heapUsed / 2 ** 20),
      },
      'shedding load: refusing new requests with 503',
    );
    this.lastLogAt = now;
    this.shedSinceLog = 0;
  }

  /**
   * Holds a place until the response closes (sent, failed or abandoned) or, for a pipelined request
   * whose response was still queued, until its connection closes: Node emits no `close` on such a
   * response, and a place must never leak.
   */
  private admit(request: FastifyRequest, reply: FastifyReply): void {
    this.inFlight++;
    const socket = request.raw.socket as Socket | null;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.inFlight--;
      if (socket) this.releasers.get(socket)?.delete(release);
    };
    reply.raw.once('close', release);
    if (!socket) return;
    let onSocket = this.releasers.get(socket);
    if (!onSocket) {
      const releases = new Set<() => void>();
      onSocket = releases;
      this.releasers.set(socket, releases);
      socket.once('close', () => {
        for (const pending of [...releases]) pending();
      });
    }
    onSocket.add(release);
  }
}

const places = new WeakMap<FastifyRequest, Leave>();

/**
 * Gives `request`'s place in the work queue back before its handler answers: for a handler about to
 * wait on something outside the instance's work (a model's answer, another export's slot), which
 * must not hold a place meanwhile. Harmless when it holds none.
 */
export function leaveWorkQueue(request: FastifyRequest): void {
  const leave = places.get(request);
  if (!leave) return;
  places.delete(request);
  leave();
}
