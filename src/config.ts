/**
 * Configuration, read once from the environment (docs/configuration.md).
 * Invalid values throw a ConfigError whose message is one line naming the setting.
 */
export class ConfigError extends Error {}

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  /**
   * The OTLP/gRPC receiver's port, on `host` (null: off). `explicit`: named by SIGHTLINE_OTLP_GRPC_PORT,
   * so a taken port stops start-up; the default 4317 taken only turns gRPC off, with a warning.
   */
  otlpGrpc: { port: number; explicit: boolean } | null;
  /** OTLP/gRPC calls in progress at once: on the instance, on one connection, with one credential (past them UNAVAILABLE with RetryInfo). */
  otlpGrpcCalls: { total: number; perConnection: number; perCredential: number };
  database: DatabaseConfig;
  publicUrl: string;
  problemBase: string;
  patDefaultDays: number;
  patMaxDays: number;
  patMinDays: number;
  rateLimitPerMinute: number;
  redisUrl: string | null;
  logLevel: string;
  production: boolean;
  /** How long a verified signature may be reused from the in-process cache. */
  tokenCacheSeconds: number;
  /** Bytes of cacheable answers kept to be sent again while the database is unchanged (0: none). */
  readCacheBytes: number;
  /** Batch ingestion requests whose bodies are read and processed at once (per instance). */
  ingestConcurrency: number;
  /** How long a request body may take to arrive, from its first byte to its last (408 after). */
  bodyTimeoutSeconds: number;
  /** Request-body bytes this instance holds in memory at once, across all requests (503 past it). */
  bodyBudgetBytes: number;
  /** The largest request body once decompressed (Content-Encoding gzip or deflate). */
  maxDecodedBodyBytes: number;
  /** Projects one OTLP request may create (resources naming projects that do not exist yet); past it, their spans are refused. */
  otlpNewProjectsPerRequest: number;
  /** Projects an organization may have created in the past hour for OTLP to create another one. */
  otlpNewProjectsPerHour: number;
  /** How long a read body may wait for an ingestion slot before the request is shed with a 503. */
  ingestQueueSeconds: number;
  /** Exports (runs, traces) streaming at once on this instance; twice as many may wait for a slot. */
  exportConcurrency: number;
  /** How long an export may wait for a slot before it is refused with a 503. */
  exportQueueSeconds: number;
  /** Requests in progress at once on this instance; past it new ones are shed with a 503. */
  maxInFlight: number;
  /** Event-loop delay past which new requests are shed with a 503 (0: never). */
  maxEventLoopDelayMs: number;
  /** Requests whose handlers run at once on this instance; the others wait their turn in order. */
  concurrency: number;
  /** How long a request may wait for its turn before it is refused with a 503. */
  maxQueueMs: number;
  /** After a Redis failure, how long the rate limiter counts in process before asking Redis again. */
  redisBreakerSeconds: number;
  /** SQLite's `synchronous` pragma: NORMAL (WAL; a power loss may lose the last commits) or FULL. */
  sqliteSynchronous: 'NORMAL' | 'FULL';
  /** Token creations and rotations per user per minute (stricter than the general limit). */
  tokenMintRateLimit: number;
  /** Prefix of every Redis key this deployment writes. */
  redisPrefix: string;
  /** How long a rotated-away token keeps working (0: revoked at once). */
  patRotationGraceSeconds: number;
  /** The plan new organizations get. */
  defaultPlan: 'free' | 'team' | 'enterprise';
  /** Which proxies' X-Forwarded-For to believe for the client address (rate limits, logs): Fastify's `trustProxy`. */
  trustProxy: boolean | number | string[];
  /** How often each enabled monitor is evaluated. */
  monitorIntervalSeconds: number;
  /** Webhook targets on private, loopback and link-local addresses are allowed (off: SSRF guard). */
  webhookAllowPrivate: boolean;
  webhookTimeoutSeconds: number;
  /** A failed webhook delivery's first retry delay (doubled each attempt, at most an hour), and how long it keeps being retried. */
  webhookBackoffSeconds: number;
  webhookRetrySeconds: number;
  /** Model connections (LLM-as-judge) on private, loopback and link-local addresses are allowed (off: SSRF guard); how long a chat completion may take, from connecting to its answer's last byte. */
  modelAllowPrivate: boolean;
  modelTimeoutSeconds: number;
  /** Keys given by configuration (otherwise generated into the database on first start). */
  keys: { signingKeyPem: string | null; cursorKey: Buffer | null; secretsKey: Buffer | null };
  /** The OpenID Connect identity provider for dashboard sign-in; null: the built-in development one (outside production) or none. */
  oidc: { issuer: string; clientId: string; clientSecret: string } | null;
  /** A dashboard session ends after this long without a request (minutes), and this long after sign-in however active (hours). */
  sessionIdleMinutes: number;
  sessionAbsoluteHours: number;
  /** How long the audit log keeps an event (days). */
  auditRetentionDays: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(`Invalid configuration: ${name} must be an integer between ${min} and ${max} (got ${JSON.stringify(raw)})`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(`Invalid configuration: ${name} must be an integer between ${min} and ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

function url(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`Invalid configuration: ${name} must be an absolute http(s) URL (got ${JSON.stringify(raw)})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`Invalid configuration: ${name} must be an absolute http(s) URL (got ${JSON.stringify(raw)})`);
  }
  return raw.replace(/\/+$/, '');
}

export function parseDatabaseUrl(raw: string | undefined): DatabaseConfig {
  if (raw === undefined || raw === '') return { kind: 'sqlite', path: './data/sightline.db' };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('Invalid configuration: DATABASE_URL sqlite: needs a path (for example sqlite:./data/sightline.db)');
    return { kind: 'sqlite', path };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('Invalid configuration: DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('Invalid configuration: DATABASE_URL must start with sqlite:, postgres:// or postgresql://');
}

function plan(raw: string | undefined): 'free' | 'team' | 'enterprise' {
  if (raw === undefined || raw === '') return 'enterprise';
  if (raw === 'free' || raw === 'team' || raw === 'enterprise') return raw;
  throw new ConfigError(`Invalid configuration: SIGHTLINE_DEFAULT_PLAN must be one of free, team, enterprise (got ${JSON.stringify(raw)})`);
}

/** `true`, a hop count, or a comma-separated list of proxy addresses/CIDRs; unset: trust no proxy. */
function trustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0 || list.some((entry) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError('Invalid configuration: SIGHTLINE_TRUST_PROXY must be true, a hop count, or a comma-separated list of proxy addresses or CIDRs');
  }
  return list;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`Invalid configuration: ${name} must be true or false (got ${JSON.stringify(raw)})`);
}

function oidc(env: Env): Config['oidc'] {
  const issuer = env.SIGHTLINE_OIDC_ISSUER;
  if (issuer === undefined || issuer === '') {
    if (env.SIGHTLINE_OIDC_CLIENT_ID || env.SIGHTLINE_OIDC_CLIENT_SECRET) {
      throw new ConfigError('Invalid configuration: SIGHTLINE_OIDC_CLIENT_ID and SIGHTLINE_OIDC_CLIENT_SECRET need SIGHTLINE_OIDC_ISSUER');
    }
    return null;
  }
  const clientId = env.SIGHTLINE_OIDC_CLIENT_ID;
  if (!clientId)
    throw new ConfigError('Invalid configuration: SIGHTLINE_OIDC_ISSUER needs SIGHTLINE_OIDC_CLIENT_ID (and usually SIGHTLINE_OIDC_CLIENT_SECRET)');
  url('SIGHTLINE_OIDC_ISSUER', issuer);
  // Kept exactly as given: discovery compares it with the provider's `issuer`, and some (Auth0) end in a slash.
  return { issuer, clientId, clientSecret: env.SIGHTLINE_OIDC_CLIENT_SECRET ?? '' };
}

/** A 32-byte key, base64 (or base64url) encoded. */
function key32(env: Env, name: string): Buffer | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const bytes = Buffer.from(raw.trim(), /[-_]/.test(raw) ? 'base64url' : 'base64');
  if (bytes.length !== 32) throw new ConfigError(`Invalid configuration: ${name} must be 32 bytes, base64-encoded (for example: openssl rand -base64 32)`);
  return bytes;
}

function sqliteSynchronous(raw: string | undefined): 'NORMAL' | 'FULL' {
  if (raw === undefined || raw === '') return 'NORMAL';
  const value = raw.trim().toUpperCase();
  if (value === 'NORMAL' || value === 'FULL') return value;
  throw new ConfigError(`Invalid configuration: SIGHTLINE_SQLITE_SYNCHRONOUS must be NORMAL or FULL (got ${JSON.stringify(raw)})`);
}

/** An integer port, or `off`; unset: 4317, OTLP's gRPC port. */
function otlpGrpc(raw: string | undefined): Config['otlpGrpc'] {
  if (raw === undefined || raw === '') return { port: 4317, explicit: false };
  const value = raw.trim();
  if (value.toLowerCase() === 'off') return null;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new ConfigError(`Invalid configuration: SIGHTLINE_OTLP_GRPC_PORT must be an integer between 1 and 65535, or off (got ${JSON.stringify(raw)})`);
  return { port, explicit: true };
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  if (env.REDIS_URL && !/^rediss?:\/\//.test(env.REDIS_URL)) {
    throw new ConfigError('Invalid configuration: REDIS_URL must start with redis:// or rediss://');
  }
  const host = env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0';
  const publicUrl = url('SIGHTLINE_PUBLIC_URL', env.SIGHTLINE_PUBLIC_URL || `http://localhost:${port}`);
  const problemBase = env.SIGHTLINE_PROBLEM_BASE ? url('SIGHTLINE_PROBLEM_BASE', env.SIGHTLINE_PROBLEM_BASE) : `${publicUrl}/problems`;
  const patMaxDays = integer(env, 'SIGHTLINE_PAT_MAX_DAYS', 365, 1, 3650);
  const bodyBudgetBytes = integer(env, 'SIGHTLINE_BODY_BUDGET_MB', 16, 10, 65_536) * 1024 * 1024;
  const maxDecodedBodyBytes = integer(env, 'SIGHTLINE_BODY_MAX_DECOMPRESSED_MB', 12, 1, 65_536) * 1024 * 1024;
  // A decompressed body is held in the budget beside its compressed bytes: it must fit.
  if (maxDecodedBodyBytes >= bodyBudgetBytes)
    throw new ConfigError('Invalid configuration: SIGHTLINE_BODY_MAX_DECOMPRESSED_MB must be below SIGHTLINE_BODY_BUDGET_MB');
  // Unset, the default lifetime shrinks to fit a lower maximum; set, it must fit.
  const patDefaultDays = integer(env, 'SIGHTLINE_PAT_DEFAULT_DAYS', Math.min(90, patMaxDays), 1, 3650);
  if (patDefaultDays > patMaxDays) {
    throw new ConfigError(`Invalid configuration: SIGHTLINE_PAT_DEFAULT_DAYS (${patDefaultDays}) must not exceed SIGHTLINE_PAT_MAX_DAYS (${patMaxDays})`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`Invalid configuration: LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')} (got ${JSON.stringify(logLevel)})`);
  }
  const database = parseDatabaseUrl(env.DATABASE_URL);
  return {
    port,
    host,
    otlpGrpc: otlpGrpc(env.SIGHTLINE_OTLP_GRPC_PORT),
    otlpGrpcCalls: {
      total: integer(env, 'SIGHTLINE_OTLP_GRPC_MAX_CALLS', 16, 1, 10_000),
      perConnection: integer(env, 'SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CONNECTION', 4, 1, 10_000),
      perCredential: integer(env, 'SIGHTLINE_OTLP_GRPC_MAX_CALLS_PER_CREDENTIAL', 8, 1, 10_000),
    },
    database,
    publicUrl,
    problemBase,
    patDefaultDays,
    patMaxDays,
    patMinDays: 1,
    rateLimitPerMinute: integer(env, 'SIGHTLINE_RATE_LIMIT', 1200, 1, 10_000_000),
    redisUrl: env.REDIS_URL || null,
    logLevel,
    production: env.NODE_ENV === 'production',
    tokenCacheSeconds: integer(env, 'SIGHTLINE_TOKEN_CACHE_SECONDS', 30, 0, 300),
    readCacheBytes: integer(env, 'SIGHTLINE_READ_CACHE_MB', 8, 0, 1024) * 1024 * 1024,
    // SQLite works inside this process, so one batch at a time loses nothing; with PostgreSQL a second
    // batch is parsed while the first is being written.
    ingestConcurrency: integer(env, 'SIGHTLINE_INGEST_CONCURRENCY', database.kind === 'sqlite' ? 1 : 2, 1, 64),
    bodyTimeoutSeconds: integer(env, 'SIGHTLINE_BODY_TIMEOUT_SECONDS', 30, 1, 3600),
    bodyBudgetBytes,
    maxDecodedBodyBytes,
    ingestQueueSeconds: integer(env, 'SIGHTLINE_INGEST_QUEUE_SECONDS', 5, 1, 600),
    otlpNewProjectsPerRequest: integer(env, 'SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST', 10, 0, 10_000),
    otlpNewProjectsPerHour: integer(env, 'SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR', 100, 0, 1_000_000),
    exportConcurrency: integer(env, 'SIGHTLINE_EXPORT_CONCURRENCY', 4, 1, 64),
    exportQueueSeconds: integer(env, 'SIGHTLINE_EXPORT_QUEUE_SECONDS', 5, 1, 600),
    maxInFlight: integer(env, 'SIGHTLINE_MAX_IN_FLIGHT', 256, 1, 1_000_000),
    maxEventLoopDelayMs: integer(env, 'SIGHTLINE_MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
    concurrency: integer(env, 'SIGHTLINE_CONCURRENCY', 8, 1, 1024),
    maxQueueMs: integer(env, 'SIGHTLINE_MAX_QUEUE_MS', 1000, 1, 60_000),
    redisBreakerSeconds: integer(env, 'SIGHTLINE_REDIS_BREAKER_SECONDS', 5, 1, 300),
    sqliteSynchronous: sqliteSynchronous(env.SIGHTLINE_SQLITE_SYNCHRONOUS),
    tokenMintRateLimit: integer(env, 'SIGHTLINE_TOKEN_MINT_RATE_LIMIT', 10, 1, 10_000_000),
    redisPrefix: env.SIGHTLINE_REDIS_PREFIX || 'sightline',
    patRotationGraceSeconds: integer(env, 'SIGHTLINE_PAT_ROTATION_GRACE_SECONDS', 0, 0, 86_400),
    defaultPlan: plan(env.SIGHTLINE_DEFAULT_PLAN),
    trustProxy: trustProxy(env.SIGHTLINE_TRUST_PROXY),
    monitorIntervalSeconds: integer(env, 'SIGHTLINE_MONITOR_INTERVAL_SECONDS', 60, 1, 86_400),
    webhookAllowPrivate: boolean(env, 'SIGHTLINE_WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutSeconds: integer(env, 'SIGHTLINE_WEBHOOK_TIMEOUT_SECONDS', 10, 1, 300),
    webhookBackoffSeconds: integer(env, 'SIGHTLINE_WEBHOOK_BACKOFF_SECONDS', 10, 1, 3600),
    webhookRetrySeconds: integer(env, 'SIGHTLINE_WEBHOOK_RETRY_SECONDS', 86_400, 0, 604_800),
    modelAllowPrivate: boolean(env, 'SIGHTLINE_MODEL_ALLOW_PRIVATE', false),
    modelTimeoutSeconds: integer(env, 'SIGHTLINE_MODEL_TIMEOUT_SECONDS', 30, 1, 600),
    keys: {
      // A PEM in an environment variable often arrives with its newlines escaped.
      signingKeyPem: env.SIGHTLINE_SIGNING_KEY ? env.SIGHTLINE_SIGNING_KEY.replace(/\\n/g, '\n') : null,
      cursorKey: key32(env, 'SIGHTLINE_CURSOR_KEY'),
      secretsKey: key32(env, 'SIGHTLINE_SECRETS_KEY'),
    },
    oidc: oidc(env),
    sessionIdleMinutes: integer(env, 'SIGHTLINE_SESSION_IDLE_MINUTES', 720, 5, 525_600),
    sessionAbsoluteHours: integer(env, 'SIGHTLINE_SESSION_ABSOLUTE_HOURS', 168, 1, 8_760),
    auditRetentionDays: integer(env, 'SIGHTLINE_AUDIT_RETENTION_DAYS', 400, 1, 36_500),
  };
}
