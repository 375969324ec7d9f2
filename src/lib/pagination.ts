import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { Type, type ObjectOptions, type TProperties, type TSchema } from '@sinclair/typebox';
import { canonicalJson } from './json.js';
import type { KeysetRows, Position } from './keyset.js';
import type { Keyring } from './keys.js';
import { problems } from './problems.js';
import { enforcedElsewhere } from './enforced-elsewhere.js';
import { StringEnum } from '../schemas/common.js';

// The one pagination module (docs/api.md, Pagination): limit clamping, keyset cursors that are encrypted,
// authenticated and bound to their list, `limit + 1` fetching and the page envelope.

export const DEFAULT_LIMIT = 25;
export const MIN_LIMIT = 1;
export const MAX_LIMIT = 100;
const MAX_CURSOR_LENGTH = 1024;
const CURSOR_VERSION = 1;
// Cursors are base64url of the version byte (`AQ`..`Af` first), key tag, IV, sealed position and tag: 34+ bytes.
const MIN_CURSOR_LENGTH = 46;
const CURSOR_PATTERN = `^A[Q-Za-f][A-Za-z0-9_-]{${MIN_CURSOR_LENGTH - 2},${MAX_CURSOR_LENGTH - 2}}$`;
const CURSOR_SHAPE = new RegExp(CURSOR_PATTERN);
const CURSOR_DESCRIPTION =
  'Opaque `nextCursor` from the previous page of the same list with the same filters. Only a cursor this service wrote for this list is taken (it is authenticated): any other of this shape is refused as malformed.';

/** Query parameters every list endpoint takes; spread into the route's querystring schema. */
export const pageQueryProperties = {
  limit: Type.Optional(
    Type.Integer({
      description: `Items per page, ${MIN_LIMIT}..${MAX_LIMIT} (default ${DEFAULT_LIMIT}); out-of-range values are clamped and the used value is echoed as \`limit\`.`,
    }),
  ),
  // Checked by cursorWellFormed beside the query's other faults, with the one answer "Cursor is malformed.".
  cursor: Type.Optional(
    enforcedElsewhere(Type.String({ description: CURSOR_DESCRIPTION }), {
      minLength: MIN_CURSOR_LENGTH,
      maxLength: MAX_CURSOR_LENGTH,
      pattern: CURSOR_PATTERN,
    }),
  ),
};

/**
 * `order` of a list that can be walked either way along its sort key (its index serves both): a
 * property of the list's query, bound into its cursors like a filter.
 */
export const listOrderProperty = (sortKey: string) => ({
  order: Type.Optional(
    StringEnum(['desc', 'asc'] as const, {
      description: `\`desc\` (the default): newest first by ${sortKey}, then by id descending; \`asc\`: oldest first, then by id ascending. A cursor continues only the order it was given in.`,
    }),
  ),
});

/** A list's query: the page's parameters (`limit`, `cursor`) and the list's own filters, nothing else. */
export function listQuery<T extends TProperties>(filters: T, options: ObjectOptions = {}) {
  return Type.Object({ ...pageQueryProperties, ...filters }, { additionalProperties: false, ...options });
}

/** The query of a list that takes no filters: only `limit` and `cursor`. */
export const PageOnlyQuery = listQuery({});

/** The `name` filter of a list of named things: a case-insensitive substring of at most `maxLength` characters. */
export const nameContains = (maxLength: number) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, description: 'Case-insensitive substring of the name' }));

const NEXT_CURSOR = 'Pass as `cursor` for the next page (it has the shape the `cursor` parameter states); null when this is the last page.';
export function pageSchema<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], { description: NEXT_CURSOR }),
      limit: Type.Integer({ description: 'The page size actually used.' }),
    },
    { title },
  );
}

/** The page of a named record type (its `$id`), titled `<name>Page`. */
export const recordPage = (name: string) => pageSchema(Type.Ref(name), `${name}Page`);

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  limit: number;
}

// The list queries themselves (keyset order and position, either way): keyset.ts, part of this module.
export { type Keyset, keysetPage, keysetQuery, keysetRows, type KeysetRows, type ListOrder, type Position } from './keyset.js';

/** What a cursor is bound to: any difference makes the cursor fail authentication. */
export interface ListIdentity {
  endpoint: string;
  organizationId: string;
  parents?: string[];
  filters?: Record<string, unknown>;
}

const bindings = new WeakMap<ListIdentity, Buffer>();

/** The additional data a list's cursors are authenticated with; a deep page decodes and encodes with the same. */
function bindingOf(identity: ListIdentity): Buffer {
  let binding = bindings.get(identity);
  if (binding === undefined) {
    binding = Buffer.from(canonicalJson([CURSOR_VERSION, identity.endpoint, identity.organizationId, identity.parents ?? [], identity.filters ?? {}]));
    bindings.set(identity, binding);
  }
  return binding;
}

/**
 * Initialization vectors for cursors: random bytes drawn a few hundred cursors' worth at a time (one
 * call into the generator instead of one per page) and never handed out twice.
 */
class IvPool {
  private readonly pool = Buffer.alloc(IV_BYTES * 256);
  private offset = this.pool.length;

  next(): Buffer {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    // A copy: the pool is refilled in place.
    const iv = Buffer.from(this.pool.subarray(this.offset, this.offset + IV_BYTES));
    this.offset += IV_BYTES;
    return iv;
  }
}
const IV_BYTES = 12;

export function clampLimit(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, requested));
}

/**
 * Whether a cursor has the shape of one this module writes (length, alphabet, canonical base64url,
 * version, room for its parts). Checked with the rest of the query, so that a validation problem lists a
 * junk cursor beside the other faults; whether it belongs to this list is known only once the query is
 * valid (it is bound to the list's filters), when `decode` authenticates it.
 */
export function cursorWellFormed(cursor: string): boolean {
  return cursorBytes(cursor) !== null;
}

/** The bytes of a well-formed cursor (`cursorWellFormed`), else null. */
function cursorBytes(cursor: string): Buffer | null {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_SHAPE.test(cursor) || !canonicalBase64url(cursor)) return null;
  const raw = Buffer.from(cursor, 'base64url');
  return raw.length >= 1 + 4 + 12 + 1 + 16 && raw[0] === CURSOR_VERSION ? raw : null;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether base64url text (of that alphabet) is the one form Buffer writes of its bytes: no padding, so
 * never a length of 4n + 1, and the bits past the last byte all zero. What decoding and encoding it again
 * would tell (the suite compares them), without doing it.
 */
export function canonicalBase64url(text: string): boolean {
  const rest = text.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = BASE64URL.indexOf(text[text.length - 1]!);
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0;
}

export class CursorCodec {
  private readonly ivs = new IvPool();

  constructor(private readonly keys: Keyring) {}

  encode(identity: ListIdentity, position: Position): string {
    const key = this.keys.cursorKey();
    const iv = this.ivs.next();
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    cipher.setAAD(bindingOf(identity));
    const body = Buffer.concat([cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([CURSOR_VERSION]), key.tag, iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Decodes a cursor for this list, or throws the one 400 validation problem (`Cursor is malformed.`). Never anything else. */
  async decode(identity: ListIdentity, cursor: string): Promise<Position> {
    const raw = cursorBytes(cursor);
    if (!raw) throw problems.cursorMalformed();
    const tag = raw.subarray(1, 5);
    const key = this.keys.cursorKeyByTag(tag) ?? (await this.keys.cursorKeyByTagReloading(tag));
    if (!key) throw problems.cursorMalformed();
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.secret, raw.subarray(5, 17));
      decipher.setAAD(bindingOf(identity));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const head = decipher.update(raw.subarray(17, raw.length - 16));
      const tail = decipher.final(); // empty (a stream mode), but it checks the tag
      plain = (tail.length === 0 ? head : Buffer.concat([head, tail])).toString('utf8');
    } catch {
      throw problems.cursorMalformed();
    }
    let position: unknown;
    try {
      position = JSON.parse(plain);
    } catch {
      throw problems.cursorMalformed();
    }
    if (!Array.isArray(position) || position.length !== 2 || !Number.isSafeInteger(position[0]) || typeof position[1] !== 'string') {
      throw problems.cursorMalformed();
    }
    return [position[0] as number, position[1] as string];
  }
}

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Fetches one page: decodes the cursor against the list identity, asks `fetch` for `limit + 1` rows
 * after the position (newest first, from `keysetPage`), and returns the envelope. A page that ends
 * exactly at the end of the stream has `nextCursor: null`.
 */
export async function paginate<Row, Item>(
  codec: CursorCodec,
  query: PageRequest,
  identity: ListIdentity,
  fetch: (after: Position | null, take: number) => Promise<KeysetRows<Row>>,
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const limit = clampLimit(query.limit);
  const after = query.cursor === undefined ? null : await codec.decode(identity, query.cursor);
  const { rows, positionOf } = await fetch(after, limit + 1);
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(toItem),
    nextCursor: hasMore && last !== undefined ? codec.encode(identity, positionOf(last)) : null,
    limit,
  };
}

/**
 * The envelope as JSON text around items that are JSON text already (records stored serialized by their
 * response schema), so a page is sent without parsing and re-serializing them.
 */
export function pageJson(page: Page<string>): string {
  return `{"items":[${page.items.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)},"limit":${page.limit}}`;
}
