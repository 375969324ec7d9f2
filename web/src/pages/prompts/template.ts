/** Prompt templates as text for editing, diffing and display, and the checks run before sending one. */
import type { CreateVersionInput, PromptVersion } from '../../types.js';

export type Template = PromptVersion['template'];
export type ChatMessage = Exclude<Template, string>[number];

const ROLES: readonly ChatMessage['role'][] = ['system', 'user', 'assistant', 'tool'];

export function isChat(template: Template): template is ChatMessage[] {
  return Array.isArray(template);
}

/** A template as lines of text: chat messages each under a `[role]` line. */
export function templateText(template: Template): string {
  if (!isChat(template)) return template;
  return template.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

/** What the editor's textarea holds for a template. */
export function editorText(template: Template): string {
  return isChat(template) ? JSON.stringify(template, null, 2) : template;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; title: string; detail: string };

/** Chat messages typed as JSON: every fault named, in words a person can act on. */
export function parseChat(text: string): Checked<ChatMessage[]> {
  const fail = (detail: string): Checked<ChatMessage[]> => ({ ok: false, title: 'The chat template is not valid', detail });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(
      `It is not valid JSON (${error instanceof Error ? error.message : 'parse error'}). Write an array such as [{"role": "user", "content": "Hello {{customer}}"}].`,
    );
  }
  if (!Array.isArray(value) || value.length === 0) return fail('It must be a non-empty JSON array of {"role", "content"} objects.');
  if (value.length > 100) return fail('It may hold at most 100 chat messages.');
  for (const [index, item] of value.entries()) {
    const where = `Item ${index + 1}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return fail(`${where} must be an object with "role" and "content".`);
    const record = item as Record<string, unknown>;
    const extra = Object.keys(record).filter((k) => k !== 'role' && k !== 'content');
    if (extra.length > 0) return fail(`${where} has ${extra.map((k) => `"${k}"`).join(', ')}; only "role" and "content" are allowed.`);
    if (typeof record.role !== 'string' || !ROLES.includes(record.role as ChatMessage['role']))
      return fail(`${where}: "role" must be one of ${ROLES.join(', ')}.`);
    if (typeof record.content !== 'string') return fail(`${where}: "content" must be a string.`);
  }
  return { ok: true, value: value as ChatMessage[] };
}

/** The optional config: empty means none; otherwise a JSON object. */
export function parseConfig(text: string): Checked<Record<string, unknown> | undefined> {
  if (text.trim() === '') return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      title: 'The config is not valid JSON',
      detail: `${error instanceof Error ? error.message : 'Parse error'}. Write an object such as {"model": "gpt-4o", "temperature": 0.2}, or leave it empty.`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      ok: false,
      title: 'The config must be a JSON object',
      detail: 'Write an object such as {"model": "gpt-4o", "temperature": 0.2}, or leave it empty.',
    };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The editor's state for a version (a new prompt's or the next one). */
export interface VersionDraft {
  chat: boolean;
  template: string;
  config: string;
  message: string;
}

export function emptyDraft(): VersionDraft {
  return { chat: false, template: '', config: '', message: '' };
}

/** A draft starting from an existing version (edit the latest into the next). */
export function draftFrom(version: PromptVersion): VersionDraft {
  return {
    chat: isChat(version.template),
    template: editorText(version.template),
    config: Object.keys(version.config).length > 0 ? JSON.stringify(version.config, null, 2) : '',
    message: '',
  };
}

/** The body fields of a version, or the first fault found. */
export function versionBody(draft: VersionDraft): Checked<CreateVersionInput> {
  let template: Template = draft.template;
  if (draft.chat) {
    const chat = parseChat(draft.template);
    if (!chat.ok) return chat;
    template = chat.value;
  }
  const config = parseConfig(draft.config);
  if (!config.ok) return config;
  const body: CreateVersionInput = { template };
  if (config.value !== undefined) body.config = config.value;
  if (draft.message.trim() !== '') body.message = draft.message.trim();
  return { ok: true, value: body };
}

/**
 * Switching the editor between plain text and chat JSON carries the text over: plain text becomes one
 * user message; chat JSON of a single message becomes its content. Anything else is left as typed.
 */
export function switchFormat(draft: VersionDraft, chat: boolean): VersionDraft {
  if (chat === draft.chat) return draft;
  if (chat) {
    const text = draft.template.trim() === '' ? '' : JSON.stringify([{ role: 'user', content: draft.template }], null, 2);
    return { ...draft, chat, template: text || '[\n  {"role": "system", "content": ""},\n  {"role": "user", "content": ""}\n]' };
  }
  const parsed = parseChat(draft.template);
  if (parsed.ok && parsed.value.length === 1) return { ...draft, chat, template: parsed.value[0]!.content };
  return { ...draft, chat };
}
