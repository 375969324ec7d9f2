import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { ConfigError } from '../config.js';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';

export const SIGNING_ALGORITHM = 'ES256';

/**
 * Keys given by configuration instead of generated into the database (docs/configuration.md): then they are never
 * written anywhere, every instance must be given the same ones, and they take precedence over the
 * database's keys (which keep verifying and decrypting what was made with them).
 */
export interface ConfiguredKeys {
  /** PKCS#8 PEM of an EC P-256 private key (JWT signing). */
  signingKeyPem?: string | null;
  /** 32 bytes: cursor encryption (AES-256-GCM). */
  cursorKey?: Buffer | null;
  /** 32 bytes: encryption of stored secrets such as webhook signing secrets (AES-256-GCM). */
  secretsKey?: Buffer | null;
}

const KID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A stable kid for configured key material (`key_` + 26 base32 characters of its SHA-256). */
function configuredKid(material: Buffer | string): string {
  const digest = createHash('sha256').update(material).digest();
  let kid = '';
  for (let i = 0; i < 26; i++) kid += KID_ALPHABET[digest[i]! % 32];
  return `key_${kid}`;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  createdAt: number;
}

export interface CursorKey {
  kid: string;
  /** First 4 bytes of SHA-256(kid): identifies the key inside a cursor without revealing it. */
  tag: Buffer;
  secret: Buffer;
  createdAt: number;
}

function cursorTag(kid: string): Buffer {
  return createHash('sha256').update(kid).digest().subarray(0, 4);
}

/**
 * The service's signing keys (JWTs), cursor keys and secret-sealing keys (AES-256-GCM), kept in the
 * database so that every instance on one database shares them, or given by configuration. Keys are generated on first start; when two instances start at
 * once each may insert one, and both keep verifying with either (an unknown kid triggers a reload).
 */
export class Keyring {
  private signing = new Map<string, SigningKey>();
  private cursors = new Map<string, CursorKey>();
  private activeSigning: SigningKey | null = null;
  private activeCursor: CursorKey | null = null;
  private secrets = new Map<string, Buffer>();
  private activeSecret: { kid: string; key: Buffer } | null = null;
  private lastReload = 0;

  private configuredSigning: SigningKey | null = null;
  private configuredCursor: CursorKey | null = null;
  private configuredSecret: { kid: string; key: Buffer } | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly configured: ConfiguredKeys = {},
  ) {}

  /** Imports the configured keys; throws an Error whose message names the setting when one is unusable. */
  private async loadConfigured(): Promise<void> {
    const { signingKeyPem, cursorKey, secretsKey } = this.configured;
    if (signingKeyPem) {
      let jwk: JWK;
      try {
        const key = createPrivateKey(signingKeyPem);
        if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not P-256');
        jwk = key.export({ format: 'jwk' }) as JWK;
      } catch {
        throw new ConfigError('Invalid configuration: SIGHTLINE_SIGNING_KEY must be the PKCS#8 PEM of an EC P-256 private key');
      }
      const publicJwk = createPublicKey(signingKeyPem).export({ format: 'jwk' }) as JWK;
      const kid = configuredKid(`${publicJwk.x}.${publicJwk.y}`);
      const signing: SigningKey = {
        kid,
        privateKey: (await importJWK(jwk, SIGNING_ALGORITHM)) as CryptoKey,
        publicKey: (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey,
        publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
        createdAt: 0,
      };
      this.configuredSigning = signing;
      this.signing.set(kid, signing);
    }
    if (cursorKey) {
      const kid = configuredKid(cursorKey);
      this.configuredCursor = { kid, tag: cursorTag(kid), secret: cursorKey, createdAt: 0 };
      this.cursors.set(kid, this.configuredCursor);
    }
    if (secretsKey) {
      this.configuredSecret = { kid: configuredKid(secretsKey), key: secretsKey };
      this.secrets.set(this.configuredSecret.kid, secretsKey);
    }
  }

  async init(): Promise<void> {
    await this.loadConfigured();
    await this.reload();
    if (!this.activeSigning) {
      const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
      const kid = newId('key', this.clock.now());
      await this.db
        .insertInto('service_keys')
        .values({
          kid,
          purpose: 'signing',
          algorithm: SIGNING_ALGORITHM,
          public_key: JSON.stringify(await exportJWK(publicKey)),
          private_key: JSON.stringify(await exportJWK(privateKey)),
          created_at: this.clock.now(),
        })
        .execute();
    }
    // Cursor and secret keys are 32 random bytes for AES-256-GCM.
    const newSymmetricKey = (purpose: 'cursor' | 'secret') =>
      this.db
        .insertInto('service_keys')
        .values({
          kid: newId('key', this.clock.now()),
          purpose,
          algorithm: 'A256GCM',
          public_key: null,
          private_key: randomBytes(32).toString('base64'),
          created_at: this.clock.now(),
        })
        .execute();
    if (!this.activeCursor) await newSymmetricKey('cursor');
    if (!this.activeSecret) await newSymmetricKey('secret');
    await this.reload();
  }

  /** Re-reads the keys; the newest key of each purpose signs/encrypts, all of them verify/decrypt. */
  async reload(): Promise<void> {
    this.lastReload = this.clock.now();
    const rows = await this.db.selectFrom('service_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
    for (const row of rows) {
      if (row.purpose === 'signing' && !this.signing.has(row.kid)) {
        const publicJwk = JSON.parse(row.public_key ?? '{}') as JWK;
        this.signing.set(row.kid, {
          kid: row.kid,
          privateKey: (await importJWK(JSON.parse(row.private_key) as JWK, row.algorithm)) as CryptoKey,
          publicKey: (await importJWK(publicJwk, row.algorithm)) as CryptoKey,
          publicJwk: { ...publicJwk, kid: row.kid, alg: row.algorithm, use: 'sig' },
          createdAt: row.created_at,
        });
      }
      if (row.purpose === 'cursor' && !this.cursors.has(row.kid)) {
        this.cursors.set(row.kid, { kid: row.kid, tag: cursorTag(row.kid), secret: Buffer.from(row.private_key, 'base64'), createdAt: row.created_at });
      }
      if (row.purpose === 'secret' && !this.secrets.has(row.kid)) this.secrets.set(row.kid, Buffer.from(row.private_key, 'base64'));
    }
    // Deterministic choice (oldest first) so instances that raced at first start converge.
    // Configured keys, when given, take precedence.
    this.activeSigning = this.configuredSigning ?? [...this.signing.values()][0] ?? null;
    this.activeCursor = this.configuredCursor ?? [...this.cursors.values()][0] ?? null;
    const [secretKid, secretKey] = [...this.secrets.entries()][0] ?? [];
    this.activeSecret = this.configuredSecret ?? (secretKid && secretKey ? { kid: secretKid, key: secretKey } : null);
  }

  private async reloadIfStale(): Promise<void> {
    if (this.clock.now() - this.lastReload >= 1000) await this.reload();
  }

  signingKey(): SigningKey {
    if (!this.activeSigning) throw new Error('keyring not initialised');
    return this.activeSigning;
  }

  /** The public key for a kid, reloading (at most once a second) when another instance added one. */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    const known = this.signing.get(kid);
    if (known) return known.publicKey;
    await this.reloadIfStale();
    return this.signing.get(kid)?.publicKey ?? null;
  }

  publicJwks(): { keys: JWK[] } {
    return { keys: [...this.signing.values()].map((k) => k.publicJwk) };
  }

  cursorKey(): CursorKey {
    if (!this.activeCursor) throw new Error('keyring not initialised');
    return this.activeCursor;
  }

  cursorKeyByTag(tag: Buffer): CursorKey | null {
    for (const key of this.cursors.values()) if (key.tag.equals(tag)) return key;
    return null;
  }

  async cursorKeyByTagReloading(tag: Buffer): Promise<CursorKey | null> {
    const found = this.cursorKeyByTag(tag);
    if (found) return found;
    await this.reloadIfStale();
    return this.cursorKeyByTag(tag);
  }

  /** Encrypts a secret the service must use later in clear (webhook signing secrets): `kid.iv.ciphertext.tag`. */
  seal(plain: string): string {
    if (!this.activeSecret) throw new Error('keyring not initialised');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.activeSecret.key, iv);
    cipher.setAAD(Buffer.from(this.activeSecret.kid));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [this.activeSecret.kid, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  async unseal(sealed: string): Promise<string> {
    const [kid, iv, body, tag] = sealed.split('.');
    if (!kid || !iv || body === undefined || !tag) throw new Error('sealed secret is malformed');
    if (!this.secrets.has(kid)) await this.reloadIfStale();
    const key = this.secrets.get(kid);
    if (!key) throw new Error(`no secret key ${kid}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
