import { useState, type FormEvent } from 'react';
import { prompts } from '../../api.js';
import { PagedTable } from '../../components/paged.js';
import { Badge, Button, Empty, ErrorBox, Panel, When } from '../../components/ui.js';
import type { List } from '../../hooks.js';
import type { LabelEvent, Prompt } from '../../types.js';
import { versionOptions } from './compare.js';
import { FormField } from './controls.js';

export type LabelHistory = List<LabelEvent>;

/** The labels (point one at a version, remove one), for those who may change prompts. */
export function LabelsPanel({ prompt, canWrite, onChanged }: { prompt: Prompt; canWrite: boolean; onChanged: (prompt: Prompt | null) => void }) {
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState(prompt.latestVersion);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const entries = Object.entries(prompt.labels).sort(([a], [b]) => a.localeCompare(b));

  const move = (event: FormEvent) => {
    event.preventDefault();
    const name = label.trim();
    setError(null);
    setBusy('set');
    prompts
      .setLabel(prompt.id, name, version)
      .then((updated) => {
        setLabel('');
        onChanged(updated);
      })
      .catch((e: unknown) => setError(e))
      .finally(() => setBusy(null));
  };
  const remove = (name: string) => {
    setError(null);
    setBusy(name);
    prompts
      .removeLabel(prompt.id, name)
      .then(() => onChanged(null))
      .catch((e: unknown) => setError(e))
      .finally(() => setBusy(null));
  };

  return (
    <Panel heading="labels-heading" title="Labels">
      {entries.length === 0 ? (
        <p className="muted">No labels yet. A label (such as production) names the version an application should use.</p>
      ) : (
        <ul className="labels-list" aria-label="Current labels">
          {entries.map(([name, v]) => (
            <li key={name}>
              <span>
                <Badge tone="info">{name}</Badge> → v{v}
              </span>
              {canWrite && (
                <Button variant="ghost" className="compact" disabled={busy !== null} onClick={() => remove(name)} aria-label={`Remove the ${name} label`}>
                  {busy === name ? 'Removing…' : 'Remove'}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <form className="inline-form" onSubmit={move} aria-label="Set a label">
          <FormField label="Label name">
            {(control) => (
              <input
                {...control}
                required
                maxLength={64}
                placeholder="production"
                autoCapitalize="off"
                autoComplete="off"
                spellCheck={false}
                value={label}
                onChange={(e) => setLabel(e.target.value)}
                list="known-labels"
              />
            )}
          </FormField>
          <datalist id="known-labels">
            {entries.map(([name]) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <FormField label="Version">
            {(control) => (
              <select {...control} value={version} onChange={(e) => setVersion(Number(e.target.value))}>
                {versionOptions(prompt)}
              </select>
            )}
          </FormField>
          <Button type="submit" variant="primary" disabled={busy !== null || label.trim() === ''}>
            {busy === 'set' ? 'Saving…' : prompt.labels[label.trim()] !== undefined ? 'Move label' : 'Set label'}
          </Button>
        </form>
      )}
      {error !== null && <ErrorBox error={error} fields={{ label: 'Label name', version: 'Version' }} />}
    </Panel>
  );
}

/** Who moved which label, when, from which version to which. */
export function LabelHistoryPanel({ history, userName }: { history: LabelHistory; userName: (id: string) => string }) {
  return (
    <Panel heading="label-history-heading" title="Label history">
      <PagedTable
        list={history}
        loadingLabel="Loading label history…"
        empty={<Empty title="No label moves yet" />}
        label="Label history"
        columns={['Label', 'Change', 'By', 'When']}
        row={(event) => (
          <tr key={event.id}>
            <td>
              <Badge tone="info">{event.label}</Badge>
            </td>
            <td className="nowrap">{describeMove(event)}</td>
            <td className="nowrap">{userName(event.actor)}</td>
            <td className="nowrap">
              <When iso={event.createdAt} />
            </td>
          </tr>
        )}
      />
    </Panel>
  );
}

function describeMove(event: LabelEvent): string {
  if (event.fromVersion === null && event.toVersion !== null) return `set to v${event.toVersion}`;
  if (event.toVersion === null && event.fromVersion !== null) return `removed from v${event.fromVersion}`;
  return `v${event.fromVersion} → v${event.toVersion}`;
}
