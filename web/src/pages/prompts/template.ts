/** Prompt templates as text for editing, diffing and display, and the checks run before sending one. */
import type { CreateVersionInput, PromptVersion } from '../../types.js';

export type Template = PromptVersion['template'];
export type ChatMessage = Exclude<Template, string>[number];

export const ROLES: readonly ChatMessage['role'][] = ['system', 'user', 'assistant', 'tool'];
/** The most messages a chat template holds (the API's `maxItems`). */
export const MAX_MESSAGES = 100;

export function isChat(template: Template): template is ChatMessage[] {
  return Array.isArray(template);
}

/** A template as lines of text: chat messages each under a `[role]` line. */
export function templateText(template: Template): string {
  if (!isChat(template)) return template;
  return template.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

export type Checked<T> = { ok: true; value: T } | { ok: false; title: string; detail: string };

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

/** A chat message as the editor holds it: `key` follows the row when messages are moved. */
export type DraftMessage = ChatMessage & { key: number };

let nextKey = 0;
export function draftMessage(role: ChatMessage['role'], content = ''): DraftMessage {
  return { key: nextKey++, role, content };
}

/** The editor's state for a version (a new prompt's or the next one): the text of a string template, or chat messages. */
export interface VersionDraft {
  chat: boolean;
  text: string;
  messages: DraftMessage[];
  config: string;
  message: string;
}

export function emptyDraft(): VersionDraft {
  return { chat: false, text: '', messages: [], config: '', message: '' };
}

/** A draft starting from an existing version (edit the latest into the next). */
export function draftFrom(version: PromptVersion): VersionDraft {
  const template = version.template;
  return {
    chat: isChat(template),
    text: isChat(template) ? '' : template,
    messages: isChat(template) ? template.map((m) => draftMessage(m.role, m.content)) : [],
    config: Object.keys(version.config).length > 0 ? JSON.stringify(version.config, null, 2) : '',
    message: '',
  };
}

/** The body fields of a version, or the first fault found. */
export function versionBody(draft: VersionDraft): Checked<CreateVersionInput> {
  if (draft.chat && draft.messages.length === 0)
    return { ok: false, title: 'The chat template has no message', detail: 'Add a message with "Add message", or switch off chat messages.' };
  if (draft.chat && draft.messages.length > MAX_MESSAGES)
    return {
      ok: false,
      title: 'Too many messages',
      detail: `A chat template holds at most ${MAX_MESSAGES} messages; remove ${draft.messages.length - MAX_MESSAGES}.`,
    };
  const template: Template = draft.chat ? draft.messages.map(({ role, content }) => ({ role, content })) : draft.text;
  const config = parseConfig(draft.config);
  if (!config.ok) return config;
  const body: CreateVersionInput = { template };
  if (config.value !== undefined) body.config = config.value;
  if (draft.message.trim() !== '') body.message = draft.message.trim();
  return { ok: true, value: body };
}

/**
 * Switching the editor between a string template and chat messages carries the text over: a string
 * becomes one user message (an empty one, a system and a user message to fill); one message becomes
 * its content, several the text they read as (`[role]` lines, as the diff shows them).
 */
export function switchFormat(draft: VersionDraft, chat: boolean): VersionDraft {
  if (chat === draft.chat) return draft;
  if (chat) {
    const messages = draft.text.trim() === '' ? [draftMessage('system'), draftMessage('user')] : [draftMessage('user', draft.text)];
    return { ...draft, chat, messages };
  }
  const plain = draft.messages.map(({ role, content }) => ({ role, content }));
  const text = plain.length === 1 ? plain[0]!.content : plain.every((m) => m.content === '') ? '' : templateText(plain);
  return { ...draft, chat, text };
}
