import { useMemo } from 'react';
import { ErrorBox, Loading, Panel } from '../../components/ui.js';
import type { Prompt, PromptVersion } from '../../types.js';
import { FormField } from './controls.js';
import { lineDiff, type DiffLine } from './diff.js';
import { templateText } from './template.js';
import { useVersion } from './versions.js';

/** Version numbers, newest first, for a select. */
export function versionOptions(prompt: Prompt) {
  return Array.from({ length: prompt.latestVersion }, (_, i) => prompt.latestVersion - i).map((v) => {
    const labels = Object.entries(prompt.labels)
      .filter(([, version]) => version === v)
      .map(([label]) => label)
      .sort();
    return (
      <option key={v} value={v}>
        v{v}
        {v === prompt.latestVersion ? ' (latest)' : ''}
        {labels.length > 0 ? ` · ${labels.join(', ')}` : ''}
      </option>
    );
  });
}

/** A line diff between any two versions' templates (and their configs when those differ). */
export function CompareVersions({ prompt, from, to, onChange }: { prompt: Prompt; from: number; to: number; onChange: (from: number, to: number) => void }) {
  const before = useVersion(prompt.id, from);
  const after = useVersion(prompt.id, to);
  const error = before.error ?? after.error;
  return (
    <Panel heading="compare-heading" title="Compare versions" id="compare">
      <div className="inline-form" style={{ marginBottom: 12 }}>
        <FormField label="From">
          {(control) => (
            <select {...control} value={from} onChange={(e) => onChange(Number(e.target.value), to)}>
              {versionOptions(prompt)}
            </select>
          )}
        </FormField>
        <FormField label="To">
          {(control) => (
            <select {...control} value={to} onChange={(e) => onChange(from, Number(e.target.value))}>
              {versionOptions(prompt)}
            </select>
          )}
        </FormField>
      </div>
      {error !== undefined && <ErrorBox error={error} />}
      {(before.loading || after.loading) && !before.data && <Loading label="Loading versions…" />}
      {before.data && after.data && <VersionDiff before={before.data} after={after.data} />}
    </Panel>
  );
}

function VersionDiff({ before, after }: { before: PromptVersion; after: PromptVersion }) {
  const template = useMemo(() => lineDiff(templateText(before.template), templateText(after.template)), [before, after]);
  const beforeConfig = JSON.stringify(before.config, null, 2);
  const afterConfig = JSON.stringify(after.config, null, 2);
  const config = useMemo(() => (beforeConfig === afterConfig ? null : lineDiff(beforeConfig, afterConfig)), [beforeConfig, afterConfig]);
  const kindChanged = Array.isArray(before.template) !== Array.isArray(after.template);
  return (
    <>
      {kindChanged && (
        <p className="muted">
          The template changed from {Array.isArray(before.template) ? 'chat messages' : 'plain text'} to{' '}
          {Array.isArray(after.template) ? 'chat messages' : 'plain text'}.
        </p>
      )}
      <DiffBlock lines={template} label="Template changes" />
      {config && (
        <>
          <h3 style={{ fontSize: '0.95rem', margin: '16px 0 8px' }}>Config</h3>
          <DiffBlock lines={config} label="Config changes" />
        </>
      )}
    </>
  );
}

function DiffBlock({ lines, label }: { lines: DiffLine[]; label: string }) {
  const added = lines.filter((l) => l.type === 'add').length;
  const removed = lines.filter((l) => l.type === 'del').length;
  return (
    <>
      <p className="diff-summary" aria-live="polite">
        {added === 0 && removed === 0 ? (
          <span className="muted">No changes.</span>
        ) : (
          <>
            <span className="plus">+{added}</span> <span className="minus">−{removed}</span> <span className="muted">lines</span>
          </>
        )}
      </p>
      <div className="diff" role="region" aria-label={label} tabIndex={0}>
        {lines.map((line, i) => (
          <div key={i} className={`diff-line ${line.type === 'same' ? '' : line.type}`}>
            <span className="ln" aria-hidden="true">
              {line.oldLine ?? ''}
            </span>
            <span className="ln" aria-hidden="true">
              {line.newLine ?? ''}
            </span>
            <span className="sign" aria-hidden="true">
              {line.type === 'add' ? '+' : line.type === 'del' ? '−' : ' '}
            </span>
            {line.type !== 'same' && <span className="visually-hidden">{line.type === 'add' ? 'added: ' : 'removed: '}</span>}
            <span className="text">{line.text === '' ? '\u00a0' : line.text}</span>
          </div>
        ))}
      </div>
    </>
  );
}
