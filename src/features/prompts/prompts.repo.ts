import type { Kysely } from 'kysely';
import { containsText } from '../../db/errors.js';
import { foundRow, unlessTaken } from '../../db/rows.js';
import type { Database, PromptRow, PromptVersionRow } from '../../db/schema.js';
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

/** A prompt of the organization by id or by name; otherwise the 404 problem. */
export async function requirePrompt(db: Kysely<Database>, organizationId: string, ref: string): Promise<PromptRow> {
  const prompt = db
    .selectFrom('prompts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(ref.startsWith('prm_') ? 'id' : 'name', '=', ref);
  return foundRow(prompt, () => problems.notFound(`Prompt ${ref} does not exist.`));
}

export async function updatePromptDescription(db: Kysely<Database>, promptId: string, description: string, now: number): Promise<void> {
  await db.updateTable('prompts').set({ description, updated_at: now }).where('id', '=', promptId).execute();
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
  const written = db.transaction().execute(async (trx) => {
    await trx.insertInto('prompts').values(row).execute();
    await trx
      .insertInto('prompt_versions')
      .values(versionRow(row.id, 1, input, principal.userId, now))
      .execute();
  });
  await unlessTaken(written, () => problems.conflict(`A prompt named "${input.name}" already exists in this organization.`));
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

export async function deletePrompt(db: Kysely<Database>, promptId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of ['prompt_label_events', 'prompt_labels', 'prompt_versions'] as const)
      await trx.deleteFrom(table).where('prompt_id', '=', promptId).execute();
    await trx.deleteFrom('prompts').where('id', '=', promptId).execute();
  });
}
