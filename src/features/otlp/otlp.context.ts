/**
 * Who and what a span belongs to: its session, its end user, its tags, and the project a resource names.
 * Dependency-free: attributes in, values out (exact names in docs/design/otlp-ingestion-research.md).
 */

type Attributes = Record<string, unknown>;

/** The longest session or user id kept; longer ones are cut (and stay whole in metadata). */
export const MAX_CONTEXT_ID_LENGTH = 256;

const SESSION_KEYS = [
  'session.id',
  'gen_ai.conversation.id',
  'langfuse.session.id',
  'ai.telemetry.metadata.sessionId',
  'traceloop.association.properties.session_id',
];
const USER_KEYS = ['user.id', 'enduser.id', 'langfuse.user.id', 'ai.telemetry.metadata.userId', 'traceloop.association.properties.user_id'];
/** OpenInference's `metadata` (a JSON object, LangChain's run metadata among others): where it names a session or a user. */
const METADATA_SESSION_KEYS = ['session_id', 'sessionId', 'thread_id', 'conversation_id'];
const METADATA_USER_KEYS = ['user_id', 'userId'];
const TAG_KEYS = ['tag.tags', 'langfuse.trace.tags', 'ai.telemetry.metadata.tags'];
const PROJECT_KEYS = ['sightline.project', 'openinference.project.name', 'service.name'];

/**
 * The first of `keys` with text, in the span's attributes over its resource's, as if they were one object
 * (a key the span has hides the resource's), without building that object for every span.
 */
function firstText(keys: string[], attributes: Attributes, resource?: Attributes): string | null {
  for (const key of keys) {
    const value = resource === undefined || Object.hasOwn(attributes, key) ? attributes[key] : resource[key];
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (typeof text === 'string' && text.trim() !== '') return text.slice(0, MAX_CONTEXT_ID_LENGTH);
  }
  return null;
}

/**
 * The conversation a span is part of: OpenInference and OTel `session.id`, GenAI's conversation id,
 * Langfuse's, Vercel metadata, OpenLLMetry's association property; else what OpenInference's
 * `metadata` object names (`session_id`, `thread_id`, …).
 */
export const sessionOf = (attributes: Attributes, resource?: Attributes, metadata?: Attributes | null): string | null =>
  firstText(SESSION_KEYS, attributes, resource) ?? (metadata ? firstText(METADATA_SESSION_KEYS, metadata) : null);

/** The end user a span served, by the same conventions (`user_id` in OpenInference's `metadata`). */
export const userOf = (attributes: Attributes, resource?: Attributes, metadata?: Attributes | null): string | null =>
  firstText(USER_KEYS, attributes, resource) ?? (metadata ? firstText(METADATA_USER_KEYS, metadata) : null);

/** A tag list as instrumentation sends it: an array, a JSON array in a string, or a comma-separated string. */
function tagList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((tag): tag is string => typeof tag === 'string');
  if (typeof value !== 'string') return [];
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      return tagList(JSON.parse(text));
    } catch {
      // not JSON after all: a comma list
    }
  }
  return text.split(',');
}

/** The span's tags, from every convention that carries some: trimmed, non-empty, unique, at most 50 of 128 characters. */
export function tagsOf(attributes: Attributes): string[] {
  const tags = new Set<string>();
  for (const key of TAG_KEYS) {
    for (const tag of tagList(attributes[key])) {
      const trimmed = tag.trim().slice(0, 128);
      if (trimmed !== '' && tags.size < 50) tags.add(trimmed);
    }
  }
  return [...tags];
}

/**
 * The project a resource's spans go to: the `Sightline-Project` header (id or name) for the whole
 * request, else the resource attribute `sightline.project`, else `openinference.project.name`, else
 * `service.name`; null when none names one.
 */
export function projectNameOf(header: string | undefined, resource: Attributes): string | null {
  if (header !== undefined && header.trim() !== '') return header.trim();
  return firstText(PROJECT_KEYS, resource);
}
