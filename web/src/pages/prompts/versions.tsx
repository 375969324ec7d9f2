import { useEffect, useRef } from 'react';
import { prompts } from '../../api.js';
import { Paged } from '../../components/paged.js';
import { Badge, Button, Empty, Loading, Panel, When } from '../../components/ui.js';
import { useAsync, type List } from '../../hooks.js';
import type { Prompt, PromptVersion } from '../../types.js';
import { draftFrom, emptyDraft } from './template.js';
import { TemplateView } from './template-view.js';
import { VersionForm } from './version-fields.js';

export type VersionList = List<PromptVersion>;

/** Versions never change once created: each is fetched once per page load. */
const versionCache = new Map<string, Promise<PromptVersion>>();

export function fetchVersion(promptId: string, version: number): Promise<PromptVersion> {
  const key = `${promptId}/${version}`;
  let found = versionCache.get(key);
  if (!found) {
    found = prompts.version(promptId, version);
    versionCache.set(key, found);
    found.catch(() => versionCache.delete(key));
  }
  return found;
}

export function useVersion(promptId: string, version: number | null) {
  return useAsync(() => (version === null ? Promise.resolve(null) : fetchVersion(promptId, version)), `prompt-version:${promptId}/${version}`);
}

/** The versions, newest first: message, author, date, variables, and the template on demand (`focus`'s shown, and scrolled to). */
export function VersionsPanel({
  prompt,
  versions,
  userName,
  onCompare,
  focus = null,
}: {
  prompt: Prompt;
  versions: VersionList;
  userName: (id: string) => string;
  onCompare: (from: number, to: number) => void;
  focus?: number | null;
}) {
  const focused = useRef<number | null>(null);
  const listed = versions.items.some((v) => v.version === focus);
  useEffect(() => {
    if (focus === null || !listed || focused.current === focus) return;
    focused.current = focus;
    document.getElementById(`version-${focus}`)?.scrollIntoView({ block: 'start' });
  }, [focus, listed]);
  const labelsOf = new Map<number, string[]>();
  for (const [label, version] of Object.entries(prompt.labels)) labelsOf.set(version, [...(labelsOf.get(version) ?? []), label]);
  return (
    <Panel heading="versions-heading" title="Versions">
      <Paged list={versions} loadingLabel="Loading versions…" empty={<Empty title="No versions" />}>
        {(items) => (
          <ol className="version-list" aria-label="Versions, newest first">
            {items.map((v) => (
              <li key={v.version} id={`version-${v.version}`} aria-current={v.version === focus ? 'true' : undefined}>
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
                  {userName(v.createdBy)} · <When iso={v.createdAt} />
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
                <details open={v.version === focus || undefined}>
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
        )}
      </Paged>
    </Panel>
  );
}

/** The next version, starting from the latest one's template and config. */
export function NewVersionForm({ prompt, onCreated, onCancel }: { prompt: Prompt; onCreated: (version: PromptVersion) => void; onCancel: () => void }) {
  const latest = useVersion(prompt.id, prompt.latestVersion);
  if (latest.loading) return <Loading label="Loading the latest version…" />;
  return (
    <VersionForm
      initial={latest.data ? draftFrom(latest.data) : emptyDraft()}
      submitLabel="Create version"
      onCancel={onCancel}
      create={async (version) => onCreated(await prompts.createVersion(prompt.id, version))}
    >
      <p className="muted" style={{ marginTop: 0 }}>
        Starts from the latest version. Versions are immutable: this creates the next one.
      </p>
    </VersionForm>
  );
}
