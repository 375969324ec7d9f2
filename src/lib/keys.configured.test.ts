/**
 * Keys given by configuration (docs/operations.md, Scaling out: "generated on first start and kept in the database … or given
 * by configuration"): SIGHTLINE_SIGNING_KEY, SIGHTLINE_CURSOR_KEY, SIGHTLINE_SECRETS_KEY. Configured keys
 * are never written to the database, take precedence over the database's keys (which keep verifying
 * what they made), and make two instances on different databases agree on tokens and cursors.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { TokenService } from '../auth/tokens.js';
import { ConfigError } from '../config.js';
import type { App } from '../deps.js';
import { systemClock } from './clock.js';
import { Keyring } from './keys.js';
import { CursorCodec } from './pagination.js';
import { expectProblem, Factories, testConfig } from '../../test/helpers/harness.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/storage.js';

const signingPem = (curve = 'prime256v1') => generateKeyPairSync('ec', { namedCurve: curve }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('keys given by configuration', () => {
  const pem = signingPem();
  const cursorKey = randomBytes(32).toString('base64');
  const secretsKey = randomBytes(32).toString('base64');
  const env = { SIGHTLINE_SIGNING_KEY: pem.replace(/\n/g, '\\n'), SIGHTLINE_CURSOR_KEY: cursorKey, SIGHTLINE_SECRETS_KEY: secretsKey };
  const databases: TestDatabase[] = [];
  const apps: App[] = [];

  async function instance(overrides: Record<string, string> = env) {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const config = testConfig(overrides);
    const app = await buildApp({ config, storage: database.storage });
    apps.push(app);
    const keys = new Keyring(database.storage.db, systemClock, config.keys);
    await keys.init();
    const tokens = new TokenService(database.storage.db, keys, config, systemClock);
    return { app, database, config, tokens };
  }

  /** An owner on `target`'s database with a PAT signed by `signer`'s token service (the instance's own unless given). */
  const caller = (
    target: { database: TestDatabase; tokens: TokenService },
    signer = target.tokens,
    options: { organizationId?: string; email?: string } = {},
  ) => new Factories(target.database.storage.db, signer, systemClock).caller({ ...options, expiresInDays: 1 });

  let a: Awaited<ReturnType<typeof instance>>;
  beforeAll(async () => {
    a = await instance();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const database of databases) await database.destroy();
  });

  it('signs with the configured key: the JWKS publishes it, and no key material of it is stored', async () => {
    const { token } = await caller(a);
    const me = await a.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode).toBe(200);
    const kid = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;
    expect(kid).toMatch(/^key_[0-9a-z]{26}$/);
    const jwks = (await a.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(kid);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    const rows = await a.database.storage.db.selectFrom('service_keys').selectAll().execute();
    expect(rows.map((r) => r.kid)).not.toContain(kid);
    // Nothing was generated either: every purpose is configured.
    expect(rows).toEqual([]);
  });

  it('two instances on different databases given the same keys accept each other’s tokens, cursors and sealed secrets', async () => {
    const b = await instance();
    // A token signed by A's service for a user of B's database: only the shared configured key makes B accept it.
    const signedByA = await caller(b, a.tokens);
    expect((await b.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${signedByA.token}` } })).statusCode).toBe(200);

    const keysA = new Keyring(a.database.storage.db, systemClock, a.config.keys);
    const keysB = new Keyring(b.database.storage.db, systemClock, b.config.keys);
    await Promise.all([keysA.init(), keysB.init()]);
    const identity = { endpoint: 'projects', organizationId: signedByA.organizationId };
    const cursor = new CursorCodec(keysA).encode(identity, [1_700_000_000_000, 'prj_x']);
    expect(await new CursorCodec(keysB).decode(identity, cursor)).toEqual([1_700_000_000_000, 'prj_x']);
    expect(await keysB.unseal(keysA.seal('whsec_shared'))).toBe('whsec_shared');
  });

  it('a database key made before the key was configured keeps verifying; new tokens use the configured key', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const plain = await buildApp({ config: testConfig(), storage: database.storage });
    apps.push(plain);
    const plainKeys = new Keyring(database.storage.db, systemClock);
    await plainKeys.init();
    const { token: old } = await caller({ database, tokens: new TokenService(database.storage.db, plainKeys, testConfig(), systemClock) });
    const configured = await buildApp({ config: testConfig(env), storage: database.storage });
    apps.push(configured);
    const me = await configured.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${old}` } });
    expect(me.statusCode).toBe(200);
    const keys = new Keyring(database.storage.db, systemClock, testConfig(env).keys);
    await keys.init();
    expect(keys.signingKey().kid).not.toBe(JSON.parse(Buffer.from(old.split('.')[0]!, 'base64url').toString()).kid);
  });

  it('a token signed by a different configured key is refused, although its row is in the database', async () => {
    const other = await instance({ ...env, SIGHTLINE_SIGNING_KEY: signingPem() });
    const foreign = await caller(a, other.tokens, { email: 'foreign@example.test' });
    expectProblem(
      await a.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${foreign.token}` } }),
      401,
      'unauthorized',
      'The bearer token is invalid.',
    );
    // The same row signed with A's key is accepted: only the key differs.
    const own = await caller(a, a.tokens, { organizationId: foreign.organizationId, email: 'foreign@example.test' });
    expect((await a.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${own.token}` } })).statusCode).toBe(200);
  });

  it('refuses unusable key settings with one line naming the setting', async () => {
    expect(() => testConfig({ SIGHTLINE_CURSOR_KEY: 'c2hvcnQ=' })).toThrow(
      new ConfigError('Invalid configuration: SIGHTLINE_CURSOR_KEY must be 32 bytes, base64-encoded (for example: openssl rand -base64 32)'),
    );
    expect(() => testConfig({ SIGHTLINE_SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(ConfigError);
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    for (const bad of ['not a pem', signingPem('secp384r1'), generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()]) {
      await expect(buildApp({ config: testConfig({ SIGHTLINE_SIGNING_KEY: bad }), storage: database.storage })).rejects.toThrow(
        new ConfigError('Invalid configuration: SIGHTLINE_SIGNING_KEY must be the PKCS#8 PEM of an EC P-256 private key'),
      );
    }
  });
});
