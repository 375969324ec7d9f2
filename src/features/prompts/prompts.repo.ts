import type { Kysely } from 'kysely';
import { lockRows, takeRowLock, type Dialect } from '../../db/dialect.js';
import { containsText, isUniqueViolation } from '../../db/errors.js';
import type { Database, PromptLabelEventRow, PromptRow, PromptVersionRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { jsonValueFault } from '../../lib/json.js';
import { problems, type FieldError } from '../../lib/problems.js';
import type { Prompt, PromptVersion, Template } from './prompts.schemas.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

function textsOf(template: Template): string[] {
  return typeof template === 'string' ? [template] : template.map((m) => m.content);
}

/** The `{{name}}` placeholders of a template, each once, in order of appearance. */
export function extractVariables(template: Template): string[] {
  const found = new Set<string>();
  for (const text of textsOf(template)) for (const match of text.matchAll(PLACEHOLDER)) found.add(match[1]!);
  return [...found];
}

/** Fills every placeholder; a missing or an unknown variable is a validation problem naming each. */
export function renderTemplate(template: Template, variables: Record<string, string | number | boolean>): Template {
  const expected = extractVariables(template);
  const faults: FieldError[] = [];
  for (const name of expected) if (!Object.hasOwn(variables, name)) faults.push({ pointer: `/variables/${name}`, detail: `Missing variable '${name}'.` });
  for (const name of Object.keys(variables))
    if (!expected.includes(name)) faults.push({ pointer: `/variables/${name}`, detail: `Unknown variable '${name}': the template has no {{${name}}}.` });
  if (faults.length > 0) throw problems.validation(faults);
  const fill = (text: string) => text.replace(PLACEHOLDER, (_all, name: string) => String(variables[name]));
  return typeof template === 'string' ? fill(template) : template.map((m) => ({ ...m, content: fill(m.content) }));
}

export function toPrompt(row: PromptRow, labels: Record<string, number>): Prompt {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    latestVersion: row.latest_version,
    labels,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export function toVersion(row: PromptVersionRow): PromptVersion {
  return {
    promptId: row.prompt_id,
    version: row.version,
    template: JSON.parse(row.template) as Template,
    variables: JSON.parse(row.variables) as string[],
    config: JSON.parse(row.config) as Record<string, unknown>,
    message: row.message,
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
  };
}

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

/** A prompt of the organization by id or by name; otherwise the 404 problem. */
export async function requirePrompt(db: Kysely<Database>, organizationId: string, ref: string): Promise<PromptRow> {
  const row = await db
    .selectFrom('prompts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(ref.startsWith('prm_') ? 'id' : 'name', '=', ref)
    .executeTakeFirst();
  if (!row) throw problems.notFound(`Prompt ${ref} does not exist.`);
  return row;
}

export async function listPrompts(
  db: Kysely<Database>,
  organizationId: string,
  filters: { name?: string | undefined; label?: string | undefined },
  after: Position | null,
  take: number,
): Promise<KeysetRows<PromptRow>> {
  let query = db.selectFrom('prompts').selectAll().where('organization_id', '=', organizationId);
  if (filters.name !== undefined) query = query.where(containsText('name', filters.name.toLowerCase()));
  if (filters.label !== undefined) {
    const label = filters.label;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('prompt_labels')
          .select('prompt_labels.label')
          .whereRef('prompt_labels.prompt_id', '=', 'prompts.id')
          .where('prompt_labels.label', '=', label),
      ),
    );
  }
  return keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
}

interface VersionInput {
  template: Template;
  config?: Record<string, unknown> | undefined;
  message?: string | undefined;
}

function versionRow(promptId: string, version: number, input: VersionInput, userId: string, now: number): PromptVersionRow {
  const fault = jsonValueFault(input.config ?? {}, false);
  if (fault) throw problems.validation([{ pointer: '/config', detail: fault }]);
  return {
    prompt_id: promptId,
    version,
    template: JSON.stringify(input.template),
    variables: JSON.stringify(extractVariables(input.template)),
    config: JSON.stringify(input.config ?? {}),
    message: input.message ?? '',
    created_by: userId,
    created_at: now,
  };
}

export async function createPrompt(
  db: Kysely<Database>,
  principal: { organizationId: string; userId: string },
  input: VersionInput & { name: string; description?: string | undefined },
  now: number,
): Promise<PromptRow> {
  const row: PromptRow = {
    id: newId('prm', now),
    organization_id: principal.organizationId,
    name: input.name,
    description: input.description ?? '',
    latest_version: 1,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('prompts').values(row).execute();
      await trx
        .insertInto('prompt_versions')
        .values(versionRow(row.id, 1, input, principal.userId, now))
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw problems.conflict(`A prompt named "${input.name}" already exists in this organization.`);
    throw error;
  }
  return row;
}

/**
 * The next version, numbered under the prompt row's lock: concurrent creators are serialized by the
 * `latest_version` increment, so numbers are never skipped or repeated.
 */
export async function createVersion(db: Kysely<Database>, promptId: string, input: VersionInput, userId: string, now: number): Promise<PromptVersionRow> {
  return db.transaction().execute(async (trx) => {
    const bumped = await trx
      .updateTable('prompts')
      .set((eb) => ({ latest_version: eb('latest_version', '+', 1), updated_at: now }))
      .where('id', '=', promptId)
      .returning('latest_version')
      .executeTakeFirst();
    if (!bumped) throw problems.notFound(`Prompt ${promptId} does not exist.`);
    const row = versionRow(promptId, bumped.latest_version, input, userId, now);
    await trx.insertInto('prompt_versions').values(row).execute();
    return row;
  });
}

export async function listVersions(db: Kysely<Database>, promptId: string, after: Position | null, take: number): Promise<KeysetRows<PromptVersionRow>> {
  return keysetPage(db.selectFrom('prompt_versions').selectAll().where('prompt_id', '=', promptId), { sort: 'version', id: 'prompt_id' }, after, take);
}

/** A version by number, or the version a label points at. */
export async function getVersion(db: Kysely<Database>, promptId: string, ref: string): Promise<PromptVersionRow> {
  let version: number | undefined;
  if (/^[0-9]{1,9}$/.test(ref)) version = Number(ref);
  else {
    const label = await db.selectFrom('prompt_labels').select('version').where('prompt_id', '=', promptId).where('label', '=', ref).executeTakeFirst();
    version = label?.version;
  }
  const row =
    version === undefined
      ? undefined
      : await db.selectFrom('prompt_versions').selectAll().where('prompt_id', '=', promptId).where('version', '=', version).executeTakeFirst();
  if (!row) throw problems.notFound(`Version ${ref} of this prompt does not exist.`);
  return row;
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

export async function deletePrompt(db: Kysely<Database>, promptId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of ['prompt_label_events', 'prompt_labels', 'prompt_versions'] as const)
      await trx.deleteFrom(table).where('prompt_id', '=', promptId).execute();
    await trx.deleteFrom('prompts').where('id', '=', promptId).execute();
  });
}
