import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { TokenService } from './auth/tokens.js';
import type { Config } from './config.js';
import type { Dialect } from './db/dialect.js';
import type { Database } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { Keyring } from './lib/keys.js';
import type { CursorCodec } from './lib/pagination.js';
import type { LoadShedder } from './lib/shedding.js';

/**
 * What else happens to runs the moment they are stored, in the transaction that stores them: handed to
 * ingestion by `buildApp` (the evaluator rules sample the new runs, `queueEvaluations`), so that
 * ingestion, a record of the tier below, never imports the quality loop above it (ARCHITECTURE.md, Tiers).
 */
export type RunsStored = (db: Kysely<Database>, projectId: string, runIds: readonly string[], now: number) => Promise<unknown>;

/** What route modules receive: explicit dependencies, no globals. Kernel: it names no feature. */
export interface Deps {
  config: Config;
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  keys: Keyring;
  tokens: TokenService;
  cursors: CursorCodec;
  shedding: LoadShedder;
  /** Called with the runs each ingestion stores, in its transaction (the evaluator rules' sampling). */
  runsStored: RunsStored;
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
