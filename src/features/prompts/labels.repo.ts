import type { Kysely } from 'kysely';
import { lockRows, takeRowLock, type Dialect } from '../../db/dialect.js';
import type { Database, PromptLabelEventRow, PromptRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';

// A prompt's labels (name → version) and the record of their moves.

export function toLabelEvent(row: PromptLabelEventRow) {
  return { id: row.id, label: row.label, fromVersion: row.from_version, toVersion: row.to_version, actor: row.actor, createdAt: toIso(row.created_at) };
}

export async function labelsOf(db: Kysely<Database>, promptIds: string[]): Promise<Map<string, Record<string, number>>> {
  const byPrompt = new Map<string, Record<string, number>>(promptIds.map((id) => [id, {}]));
  if (promptIds.length === 0) return byPrompt;
  const rows = await db.selectFrom('prompt_labels').select(['prompt_id', 'label', 'version']).where('prompt_id', 'in', promptIds).orderBy('label').execute();
  for (const row of rows) byPrompt.get(row.prompt_id)![row.label] = row.version;
  return byPrompt;
}

const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The id right after `id` in bytewise order (its base32 tail incremented with carry). */
function successor(id: string): string {
  const chars = [...id];
  for (let i = chars.length - 1; i >= 0; i--) {
    const at = ID_ALPHABET.indexOf(chars[i]!);
    if (at < 0) break;
    if (at < ID_ALPHABET.length - 1) {
      chars[i] = ID_ALPHABET[at + 1]!;
      return chars.join('');
    }
    chars[i] = ID_ALPHABET[0]!;
  }
  return `${id}0`;
}

/**
 * The id and time of a prompt's next label event, sorting after every earlier one: ids are random within
 * a millisecond, so two moves in the same millisecond (or a clock that stepped back) would otherwise be
 * listed in random order. Callers hold the prompt's lock, so the newest event cannot change meanwhile.
 */
async function nextEvent(trx: Kysely<Database>, promptId: string, now: number): Promise<{ id: string; at: number }> {
  const last = await trx
    .selectFrom('prompt_label_events')
    .select(['id', 'created_at'])
    .where('prompt_id', '=', promptId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const lastAt = last === undefined ? -Infinity : Number(last.created_at);
  const at = Math.max(now, lastAt);
  const id = newId('ple', at);
  return { id: last !== undefined && lastAt === at && id <= last.id ? successor(last.id) : id, at };
}

/** Points a label at a version (creating it), recording the move. */
export async function setLabel(
  db: Kysely<Database>,
  dialect: Dialect,
  prompt: PromptRow,
  label: string,
  version: number,
  userId: string,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = lockRows(trx.selectFrom('prompts').select('latest_version').where('id', '=', prompt.id), dialect);
    const latest = (await current.executeTakeFirst())?.latest_version ?? 0;
    if (version > latest) throw problems.validation([{ pointer: '/version', detail: `Version ${version} does not exist (the latest is ${latest}).` }]);
    const existing = await trx.selectFrom('prompt_labels').select('version').where('prompt_id', '=', prompt.id).where('label', '=', label).executeTakeFirst();
    if (existing?.version === version) return;
    await trx
      .insertInto('prompt_labels')
      .values({ prompt_id: prompt.id, label, version, updated_by: userId, updated_at: now })
      .onConflict((oc) => oc.columns(['prompt_id', 'label']).doUpdateSet({ version, updated_by: userId, updated_at: now }))
      .execute();
    const event = await nextEvent(trx, prompt.id, now);
    await trx
      .insertInto('prompt_label_events')
      .values({ id: event.id, prompt_id: prompt.id, label, from_version: existing?.version ?? null, to_version: version, actor: userId, created_at: event.at })
      .execute();
  });
}

export async function removeLabel(db: Kysely<Database>, dialect: Dialect, prompt: PromptRow, label: string, userId: string, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The same lock as setLabel: moves of one prompt's labels are serialized, so their events are ordered.
    await takeRowLock(trx.selectFrom('prompts').select('id').where('id', '=', prompt.id), dialect);
    const removed = await trx.deleteFrom('prompt_labels').where('prompt_id', '=', prompt.id).where('label', '=', label).returning('version').executeTakeFirst();
    if (!removed) throw problems.notFound(`Label ${label} does not exist on this prompt.`);
    const event = await nextEvent(trx, prompt.id, now);
    await trx
      .insertInto('prompt_label_events')
      .values({ id: event.id, prompt_id: prompt.id, label, from_version: removed.version, to_version: null, actor: userId, created_at: event.at })
      .execute();
  });
}

export async function listLabelEvents(db: Kysely<Database>, promptId: string, after: Position | null, take: number): Promise<KeysetRows<PromptLabelEventRow>> {
  return keysetPage(db.selectFrom('prompt_label_events').selectAll().where('prompt_id', '=', promptId), { sort: 'created_at', id: 'id' }, after, take);
}
