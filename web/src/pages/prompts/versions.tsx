import { useState, type FormEvent } from 'react';
import { api } from '../../api.js';
import { Badge, Button, Empty, ErrorBox, LoadMore, Loading } from '../../components/ui.js';
import { useAsync, type useList } from '../../hooks.js';
import { fmtDate, fmtRelative } from '../../format.js';
import type { Prompt, PromptVersion } from '../../types.js';
import { InvalidBox } from './controls.js';
import { draftFrom, emptyDraft, versionBody, type VersionDraft } from './template.js';
import { TemplateView } from './template-view.js';
import { VersionFields } from './version-fields.js';

export type VersionList = ReturnType<typeof useList<PromptVersion>>;

/** Versions never change once created: each is fetched once per page load. */
const versionCache = new Map<string, Promise<PromptVersion>>();

export function fetchVersion(promptId: string, version: number): Promise<PromptVersion> {
  const key = `${promptId}/${version}`;
  let found = versionCache.get(key);
  if (!found) {
    found = api.get<PromptVersion>(`/prompts/${encodeURIComponent(promptId)}/versions/${version}`);
    versionCache.set(key, found);
    found.catch(() => versionCache.delete(key));
  }
  return found;
}

export function useVersion(promptId: string, version: number | null) {
  return useAsync(() => (version === null ? Promise.resolve(null) : fetchVersion(promptId, version)), `${promptId}/${version}`);
}

/** The versions, newest first: message, author, date, variables, and the template on demand. */
export function VersionsPanel({
  prompt,
  versions,
  userName,
  onCompare,
}: {
  prompt: Prompt;
  versions: VersionList;
  userName: (id: string) => string;
  onCompare: (from: number, to: number) => void;
}) {
  const labelsOf = new Map<number, string[]>();
  for (const [label, version] of Object.entries(prompt.labels)) labelsOf.set(version, [...(labelsOf.get(version) ?? []), label]);
  return (
    <section className="panel" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      {versions.error !== null && <ErrorBox error={versions.error} onRetry={versions.reload} />}
      {versions.items.length === 0 && versions.loading && <Loading label="Loading versions…" />}
      {versions.items.length === 0 && !versions.loading && versions.error === null && <Empty title="No versions" />}
      <ol className="version-list" aria-label="Versions, newest first">
        {versions.items.map((v) => (
          <li key={v.version}>
            <div className="version-head">
              <span className="vnum">v{v.version}</span>
              {v.version === prompt.latestVersion && <Badge tone="neutral">latest</Badge>}
              {(labelsOf.get(v.version) ?? []).sort().map((label) => (
                <Badge key={label} tone="info">
                  {label}
                </Badge>
              ))}
              <span className="cell-wrap">{v.message || <span className="muted">No message</span>}</span>
            </div>
            <div className="version-meta">
              {userName(v.createdBy)} ·{' '}
              <time dateTime={v.createdAt} title={fmtDate(v.createdAt)}>
                {fmtRelative(v.createdAt)}
              </time>
              {' · '}
              {v.variables.length === 0 ? (
                'no variables'
              ) : (
                <>
                  variables{' '}
                  <span className="chips" style={{ display: 'inline-flex' }}>
                    {v.variables.map((name) => (
                      <code key={name} className="chip">
                        {name}
                      </code>
                    ))}
                  </span>
                </>
              )}
            </div>
            <details>
              <summary>Template of v{v.version}</summary>
              <TemplateView template={v.template} />
              {Object.keys(v.config).length > 0 && (
                <>
                  <div className="version-meta" style={{ marginTop: 6 }}>
                    Config
                  </div>
                  <pre className="template-view">{JSON.stringify(v.config, null, 2)}</pre>
                </>
              )}
            </details>
            {v.version > 1 && (
              <Button
                variant="ghost"
                className="compact"
                onClick={() => onCompare(v.version - 1, v.version)}
                aria-label={`Compare v${v.version} with v${v.version - 1}`}
              >
                Diff with v{v.version - 1}
              </Button>
            )}
          </li>
        ))}
      </ol>
      <LoadMore hasMore={versions.hasMore} loading={versions.loading} onLoadMore={versions.loadMore} />
    </section>
  );
}

/** The next version, starting from the latest one's template and config. */
export function NewVersionForm({ prompt, onCreated, onCancel }: { prompt: Prompt; onCreated: (version: PromptVersion) => void; onCancel: () => void }) {
  const latest = useVersion(prompt.id, prompt.latestVersion);
  if (latest.loading) return <Loading label="Loading the latest version…" />;
  return <VersionForm initial={latest.data ? draftFrom(latest.data) : emptyDraft()} promptId={prompt.id} onCreated={onCreated} onCancel={onCancel} />;
}

function VersionForm({
  initial,
  promptId,
  onCreated,
  onCancel,
}: {
  initial: VersionDraft;
  promptId: string;
  onCreated: (version: PromptVersion) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [invalid, setInvalid] = useState<{ title: string; detail: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const body = versionBody(draft);
    if (!body.ok) {
      setInvalid(body);
      return;
    }
    setInvalid(null);
    setBusy(true);
    api
      .post<PromptVersion>(`/prompts/${encodeURIComponent(promptId)}/versions`, body.value)
      .then(onCreated)
      .catch((e: unknown) => {
        setError(e);
        setBusy(false);
      });
  };
  return (
    <form onSubmit={submit} noValidate>
      <p className="muted" style={{ marginTop: 0 }}>
        Starts from the latest version. Versions are immutable: this creates the next one.
      </p>
      <VersionFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          setInvalid(null);
        }}
      />
      {invalid && <InvalidBox {...invalid} />}
      {error !== null && <ErrorBox error={error} />}
      <div className="form-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create version'}
        </Button>
      </div>
    </form>
  );
}
