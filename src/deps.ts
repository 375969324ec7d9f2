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
import type { Monitoring } from './features/monitors/monitors.service.js';

/** What route modules receive: explicit dependencies, no globals. */
export interface Deps {
  config: Config;
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  keys: Keyring;
  tokens: TokenService;
  cursors: CursorCodec;
  monitoring: Monitoring;
  shedding: LoadShedder;
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
