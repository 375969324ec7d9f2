import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';

export const SIGNING_ALGORITHM = 'ES256';

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
 * The service's signing keys (JWTs) and cursor keys (AES-256-GCM), kept in the database so that every
 * instance on one database shares them. Keys are generated on first start; when two instances start at
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

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async init(): Promise<void> {
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
    if (!this.activeCursor) {
      await this.db
        .insertInto('service_keys')
        .values({
          kid: newId('key', this.clock.now()),
          purpose: 'cursor',
          algorithm: 'A256GCM',
          public_key: null,
          private_key: randomBytes(32).toString('base64'),
          created_at: this.clock.now(),
        })
        .execute();
    }
    if (!this.activeSecret) {
      await this.db
        .insertInto('service_keys')
        .values({
          kid: newId('key', this.clock.now()),
          purpose: 'secret',
          algorithm: 'A256GCM',
          public_key: null,
          private_key: randomBytes(32).toString('base64'),
          created_at: this.clock.now(),
        })
        .execute();
    }
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
    this.activeSigning = [...this.signing.values()][0] ?? null;
    this.activeCursor = [...this.cursors.values()][0] ?? null;
    const [secretKid, secretKey] = [...this.secrets.entries()][0] ?? [];
    this.activeSecret = secretKid && secretKey ? { kid: secretKid, key: secretKey } : null;
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
