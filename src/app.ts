import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { registerApiDocument } from './api-document.js';
import { accessHook, bearerAccess, type BearerCall } from './auth/hook.js';
import type { Scope } from './auth/permissions.js';
import { declareV1Route } from './auth/route-scope.js';
import { reachOf } from './auth/permissions.js';
import { SessionService, sessionCookieName } from './auth/sessions.js';
import { TokenService, type Principal } from './auth/tokens.js';
import type { Config } from './config.js';
import type { Storage } from './db/index.js';
import type { App, Deps } from './deps.js';
import { authRoutes, identityProvider } from './features/auth/index.js';
import { dashboardRoutes } from './features/dashboard/index.js';
import { EvaluationWorker, queueEvaluations } from './features/evaluators/index.js';
import { Monitoring } from './features/monitors/index.js';
import { originAllowList } from './features/organizations/index.js';
import { systemRoutes } from './features/system/index.js';
import { langfuseApi, SHARED_SCHEMAS, v1Routes } from './app.features.js';
import { systemClock, type Clock } from './lib/clock.js';
import { answerClientError } from './lib/client-error.js';
import { redactUrl, requestIdFrom, sendProblem, toProblem } from './lib/http.js';
import { CorsPolicy } from './lib/cors.js';
import { Keyring } from './lib/keys.js';
import { BODY_LIMIT, registerBodyAdmission, type ByteBudget } from './lib/body.js';
import { AllowedMethods } from './lib/allowed-methods.js';
import { Gate } from './lib/gate.js';
import { enforce, RateLimiter } from './lib/rate-limit.js';
import { CursorCodec } from './lib/pagination.js';
import { problems } from './lib/problems.js';
import { ReadCache } from './lib/read-cache.js';
import { heapShedBytes, LoadShedder } from './lib/shedding.js';
import { compileValidator } from './lib/validation.js';
import { lazySerializers } from './lib/serialization.js';
import { requestLoggerFactory } from './lib/request-logger.js';
import { apiSecurityHeaders, securityHeaders, serviceHelmetOptions } from './lib/security-headers.js';

/** Bodies larger than this (batches, large runs) are decoded and handled a few at a time: the ingestion gate. */
export const LARGE_BODY = 64 * 1024;
export { BODY_LIMIT };

/** A URL under /v1: its answers are never stored by a cache. */
const V1_PATH = /^\/v1(?:[/?]|$)/;

export interface BuildOptions {
  config: Config;
  storage: Storage;
  clock?: Clock;
  /** pino options, or false to stay silent (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Run the monitor evaluator and webhook deliveries in the background (`serve`); tests drive them. */
  background?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The monitor evaluator and webhook deliverer of this instance. */
    monitoring: Monitoring;
    /** The evaluator rules' background worker of this instance. */
    evaluations: EvaluationWorker;
    /**
     * Request bodies held in memory, and the ingestion gate: both back to zero when no request is in
     * flight; and the time a body may take to arrive (the OTLP/gRPC receiver holds a call's message to it).
     */
    admission: { budget: ByteBudget; gate: Gate; timeoutMs: number };
    /** The access hook's bearer checks, for callers outside Fastify's hooks (the OTLP/gRPC receiver, at a call's metadata). */
    bearerAccess: (call: BearerCall, scope: Scope) => Promise<Principal>;
    /** Cacheable reads' answers of this instance (`config.cacheable`), sent again while the database is unchanged. */
    readCache: ReadCache;
  }
}

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[REDACTED]' },
    serializers: {
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
    },
  };
}

/** Builds the whole service without listening: tests drive it with `app.inject`, `serve` listens. */
export async function buildApp(options: BuildOptions): Promise<App> {
  const { config, storage } = options;
  const clock = options.clock ?? systemClock;
  const keys = new Keyring(storage.db, clock, config.keys);
  await keys.init();
  const tokens = new TokenService(storage.db, keys, config, clock);
  const limiter = await RateLimiter.create({
    clock,
    redis: config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix, breakerSeconds: config.redisBreakerSeconds } : null,
    onRedisChange: (change) =>
      change.state === 'down'
        ? app.log.error({ err: change.error }, `rate limits: Redis failed; counting in this process, asking Redis again every ${config.redisBreakerSeconds} s`)
        : app.log.info('rate limits: Redis answers again; counting in Redis'),
  });
  const cors = new CorsPolicy(originAllowList(storage.db), config.publicUrl);
  const sessions = new SessionService(storage.db, tokens, config, clock);
  const sessionCookie = sessionCookieName(config.publicUrl);
  const monitoring = new Monitoring(
    storage.db,
    storage.dialect,
    clock,
    keys,
    {
      intervalMs: config.monitorIntervalSeconds * 1000,
      webhookAllowPrivate: config.webhookAllowPrivate,
      webhookTimeoutMs: config.webhookTimeoutSeconds * 1000,
      webhookBackoffMs: config.webhookBackoffSeconds * 1000,
      webhookRetryForMs: config.webhookRetrySeconds * 1000,
    },
    null,
  );
  const shedding = new LoadShedder({
    maxInFlight: config.maxInFlight,
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
    maxHeapUsedBytes: heapShedBytes(),
    concurrency: config.concurrency,
    maxQueueMs: config.maxQueueMs,
    problemBase: config.problemBase,
  });
  const deps: Deps = {
    config,
    db: storage.db,
    dialect: storage.dialect,
    clock,
    keys,
    tokens,
    cursors: new CursorCodec(keys),
    shedding,
    runsStored: queueEvaluations,
  };

  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    // Behind a load balancer, the client address (per-address rate limits, logs) comes from
    // X-Forwarded-For only when the operator says which proxies to believe.
    trustProxy: config.trustProxy as boolean | string[], // a hop count is accepted too (Fastify's types omit it)
    genReqId: (req) => requestIdFrom(req.headers, randomUUID),
    // Node's own bound on receiving a whole request (headers and body), a backstop behind the body
    // admission's timeout: it also ends a body that nobody reads any more, such as one still trickling
    // in after its request was answered with a 401.
    requestTimeout: (config.bodyTimeoutSeconds + 5) * 1000,
    // Requests that arrive while the server drains get the shedding hook's 503 problem (with
    // `Connection: close`) instead of Fastify's own non-problem JSON.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: false },
    frameworkErrors: (error, request, reply) => {
      sendProblem(reply, request, toProblem(error), config.problemBase);
    },
    // What Node's HTTP parser refuses (headers over its limit, a request that does not arrive in time,
    // malformed HTTP) is answered on the raw socket, with the same problem documents.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, config.problemBase, app.log),
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    // A request's child logger is made when it first logs (lib/request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(compileValidator);
  // Which methods each path answers: a known path asked with another method is a 405 with `Allow`.
  const allowedMethods = new AllowedMethods();
  app.addHook('onRoute', allowedMethods.onRoute);

  // Bodies are JSON or nothing: anything else is a 415 problem. Every body is read and decoded by the
  // one admission path (time, size and memory bounds; exact UTF-8 and JSON), whatever the route.
  app.removeContentTypeParser('text/plain');
  const ingestGate = new Gate(config.ingestConcurrency);
  const bodyTimeoutMs = config.bodyTimeoutSeconds * 1000;
  const bodyBudget = registerBodyAdmission(app, {
    maxBytes: BODY_LIMIT,
    timeoutMs: bodyTimeoutMs,
    budgetBytes: config.bodyBudgetBytes,
    maxDecodedBytes: config.maxDecodedBodyBytes,
    largeBytes: LARGE_BODY,
    gate: ingestGate,
    queueTimeoutMs: config.ingestQueueSeconds * 1000,
  });
  app.decorate('admission', { budget: bodyBudget, gate: ingestGate, timeoutMs: bodyTimeoutMs });
  const readCache = new ReadCache(config.readCacheBytes);
  app.decorate('readCache', readCache);
  app.decorate('bearerAccess', bearerAccess({ tokens, limiter, ratePerMinute: config.rateLimitPerMinute }));

  // Every answer's request id and security headers (lib/security-headers.ts): a smaller set for API
  // answers, and helmet's for pages, on the raw response as @fastify/helmet set them (a page written
  // by its handler on the socket, the identity provider's, has them too). First, so that a request shed
  // or refused by a later hook has them as well.
  const pageHeaders = securityHeaders(serviceHelmetOptions(config.publicUrl));
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (V1_PATH.test(request.url)) apiSecurityHeaders(reply);
    else pageHeaders(reply.raw);
    done();
  });
  // Overload is refused first: before rate limits, authentication and reading any body.
  await shedding.register(app);
  app.addHook('onRequest', (request, reply, done) => {
    // /v1 routes are limited per credential by the access hook; everything else (docs, 404s, preflights)
    // per client address. Health checks are never limited, so load balancers always get an answer.
    const { authenticated, healthCheck } = request.routeOptions.config;
    if (authenticated || healthCheck) return done();
    Promise.resolve(limiter.check(`ip:${request.ip}`, config.rateLimitPerMinute))
      .then((decision) => enforce(decision, reply, 'this client address'))
      .then(() => done(), done);
  });
  /** The answer where no route matches: the dashboard's page, a 405 naming the methods the path takes, or a 404. */
  function noRoute(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (dashboard.fallback(request, reply)) return reply;
    const path = request.url.split('?')[0] ?? '';
    const problem = allowedMethods.refusal(request.method, path) ?? problems.notFound(`No route for ${request.method} ${path.slice(0, 200)}.`);
    return sendProblem(reply, request, problem, config.problemBase);
  }
  // A QUERY (RFC 10008) without a Content-Type is refused by Fastify with a 400 before any handler sees it;
  // no route takes QUERY, so it gets what any method no route takes gets (`QUERY /healthz`: a 405 with Allow).
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404 && request.method === 'QUERY' && request.headers['content-type'] === undefined) noRoute(request, reply);
    else done();
  });
  app.addHook('onClose', async () => limiter.close());
  app.decorate('monitoring', monitoring);
  monitoring.attachLogger(app.log);
  if (options.background) {
    app.addHook('onReady', async () => monitoring.start());
    app.addHook('preClose', async () => monitoring.stop());
  }
  // Evaluator rules' jobs, in the background on every instance that serves (`serve`); tests drive them.
  const evaluations = new EvaluationWorker(deps, 1000, null);
  app.decorate('evaluations', evaluations);
  evaluations.log = app.log;
  if (options.background) {
    app.addHook('onReady', async () => evaluations.start());
    app.addHook('preClose', async () => evaluations.stop());
  }
  // Nothing under /v1 may be stored by a cache. Set here rather than in the /v1 plugin so that it also
  // covers the answers given outside that plugin's hooks: 404s for unknown /v1 paths (the root
  // not-found handler) and framework errors.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (V1_PATH.test(request.url)) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    // A 500 is a fault of ours, logged with its stack; a 503 is the service shedding load, as designed.
    if (problem.slug === 'internal') request.log.error({ err: error, requestId: request.id }, 'request failed');
    else if (problem.status >= 500) request.log.warn({ requestId: request.id, detail: problem.detail }, 'request refused');
    return sendProblem(reply, request, problem, config.problemBase);
  });
  app.setNotFoundHandler(noRoute);

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  await registerApiDocument(app, config);

  // Parses the Cookie header into request.cookies (the session and sign-in cookies) for the routes below.
  await app.register(cookie);

  systemRoutes(app, deps);
  const dashboard = await dashboardRoutes(app);
  authRoutes(app, deps, { oidc: identityProvider(app, config), sessions, sessionCookie, dashboardOrigin: cors.dashboardOrigin });

  // CORS preflights, for any path: answered only for the dashboard's origin and origins some
  // organization allows (docs/tokens-and-access.md, CORS).
  app.options('/*', { schema: { hide: true } }, async (request, reply) => {
    if (request.headers['access-control-request-method'] === undefined)
      throw problems.notFound(`No route for OPTIONS ${request.url.split('?')[0]?.slice(0, 200)}.`);
    await cors.preflight(request.headers.origin, reply);
    return reply.code(204).send();
  });

  const access = accessHook({
    tokens,
    limiter,
    cors,
    sessions,
    sessionCookie,
    ratePerMinute: config.rateLimitPerMinute,
    mintPerMinute: config.tokenMintRateLimit,
  });
  await app.register(
    async (v1) => {
      const api = v1 as unknown as App;
      api.addHook('onRoute', declareV1Route);
      api.addHook('onRequest', access);
      // After the access hook: a cached answer is for the caller's reach (its organization; a narrowed token's projects), in the state their check found.
      readCache.register(api, (request) => request.principal && { tenant: reachOf(request.principal), state: request.principal.readState });
      v1Routes(api, deps, { monitoring });
    },
    { prefix: '/v1' },
  );
  // Langfuse's public paths (docs/langfuse.md), for its SDKs unchanged: the same access hook and scopes as /v1.
  await app.register(langfuseApi(deps, access), { prefix: '/api/public' });

  return app;
}
