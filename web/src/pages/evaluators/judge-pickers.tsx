/** An LLM judge's pickers: its model connection and its prompt, written into the rule's settings JSON. */
import { useEffect, useId, useState } from 'react';
import { modelConnections, prompts } from '../../api.js';
import { useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import type { ModelConnection } from '../../types.js';
import { jsonText, parseJson } from '../datasets/json.js';
import { FormField } from '../prompts/controls.js';

/** The most model connections and prompts offered in the pickers (the first page of each). */
/** Pages of 100 model connections read for the picker. */
const CONNECTION_PAGES = 10;
/** Prompt names suggested as the judge prompt is typed. */
const PROMPT_SUGGESTIONS = 20;

/** The settings' JSON with one field set (or the text unchanged when it is not a JSON object). */
function withSetting(settings: string, key: string, value: string): string {
  const parsed = parseJson(settings, 'Settings', { object: true });
  const current = parsed.ok ? ((parsed.value ?? {}) as Record<string, unknown>) : null;
  return current ? jsonText({ ...current, [key]: value }) : settings;
}

/** A field of the settings' JSON as text ('' when absent or not parsed). */
function settingOf(settings: string, key: string): string {
  const parsed = parseJson(settings, 'Settings', { object: true });
  const value = parsed.ok ? (parsed.value as Record<string, unknown> | undefined)?.[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Every model connection of the organization (pages of 100, at most 1,000: an organization has a few). */
async function allConnections(): Promise<ModelConnection[]> {
  const all: ModelConnection[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < CONNECTION_PAGES; page++) {
    const result = await modelConnections.list.page({ limit: 100, cursor });
    all.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return all;
}

/**
 * The prompts whose names contain what is typed (the prompts list's `name` filter, the first
 * PROMPT_SUGGESTIONS by name), asked again a moment after typing stops; `exists`: whether one is named so exactly.
 */
function usePromptSuggestions(typed: string): { names: string[]; exists: boolean | null } {
  const [found, setFound] = useState<{ for: string; names: string[] } | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      prompts.list
        .page({ name: typed.trim() || undefined, limit: PROMPT_SUGGESTIONS })
        .then((page) => live && setFound({ for: typed, names: page.items.map((p) => p.name) }))
        .catch(() => live && setFound({ for: typed, names: [] }));
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [typed]);
  const names = found?.names ?? [];
  const settled = found?.for === typed;
  return { names, exists: typed.trim() === '' || !settled ? null : names.includes(typed.trim()) };
}

/**
 * An LLM judge's connection and prompt: the connection picked from the organization's model connections
 * (Settings › Model connections), the prompt typed with suggestions from the prompt store (any number of
 * prompts); each is written into the settings' JSON.
 */
export function JudgePickers({ settings, onChange }: { settings: string; onChange: (settings: string) => void }) {
  const connections = useAsync(allConnections, 'model-connections');
  const connectionId = settingOf(settings, 'connectionId');
  const promptName = settingOf(settings, 'promptName');
  const suggestions = usePromptSuggestions(promptName);
  const listId = useId();
  const known = (items: { id: string }[] | undefined, id: string) => id === '' || (items ?? []).some((item) => item.id === id);
  return (
    <>
      <FormField
        label="Model connection"
        hint={
          connections.error ? (
            'The model connections could not be listed: write the connectionId in the settings.'
          ) : (
            <>
              The OpenAI-compatible endpoint that judges (<Link to="/settings">Settings › Model connections</Link>).
            </>
          )
        }
      >
        {(control) => (
          <select {...control} value={connectionId} onChange={(e) => onChange(withSetting(settings, 'connectionId', e.target.value))}>
            <option value="">{connections.loading ? 'Loading…' : 'Choose a connection'}</option>
            {!known(connections.data, connectionId) && <option value={connectionId}>{connectionId}</option>}
            {(connections.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.model})
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField
        label="Judge prompt"
        hint={
          suggestions.exists === false
            ? `No prompt is named "${promptName.trim()}" yet: the rule's jobs fail until one is.`
            : 'A prompt of the prompt store using {{input}}, {{output}} and {{expected}}; it answers JSON { score, reason }.'
        }
      >
        {(control) => (
          <>
            <input
              {...control}
              value={promptName}
              list={listId}
              maxLength={100}
              placeholder="Type to search the prompt store"
              onChange={(e) => onChange(withSetting(settings, 'promptName', e.target.value))}
            />
            <datalist id={listId}>
              {suggestions.names.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </>
        )}
      </FormField>
    </>
  );
}
