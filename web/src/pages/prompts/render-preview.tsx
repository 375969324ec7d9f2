import { useEffect, useState, type FormEvent } from 'react';
import { prompts } from '../../api.js';
import { Button, ErrorBox, Loading, Panel } from '../../components/ui.js';
import { useAsync } from '../../hooks.js';
import type { Prompt, RenderResult } from '../../types.js';
import { FormField } from './controls.js';
import { TemplateView } from './template-view.js';

/** `latest` (whichever version is newest: it follows a version created on the page), `v:3` or `label:production`. */
type Ref = string;
const LATEST = 'latest';

/**
 * Fills a version's (or a label's) variables and renders it on the server: the result is exactly what
 * an application would get, and a missing or unknown variable is the server's 400, shown as it is.
 */
export function RenderPreview({ prompt, initialVersion = null }: { prompt: Prompt; initialVersion?: number | null }) {
  const [ref, setRef] = useState<Ref>(() =>
    initialVersion !== null && initialVersion >= 1 && initialVersion < prompt.latestVersion ? `v:${initialVersion}` : LATEST,
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<RenderResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const labels = Object.entries(prompt.labels).sort(([a], [b]) => a.localeCompare(b));

  // A label may have been removed: fall back to the latest.
  useEffect(() => {
    if (ref.startsWith('label:') && prompt.labels[ref.slice(6)] === undefined) setRef(LATEST);
  }, [prompt, ref]);

  /** What is rendered: `latest` resolved to the newest version's number, so a new version is fetched and shown. */
  const resolved = ref === LATEST ? `v:${prompt.latestVersion}` : ref;
  const versionRef = resolved.startsWith('label:') ? resolved.slice(6) : resolved.slice(2);
  const version = useAsync(
    () => prompts.version(prompt.id, versionRef),
    `render-version:${prompt.id}/${versionRef}/${resolved.startsWith('label:') ? String(prompt.labels[versionRef]) : ''}`,
  );

  useEffect(() => {
    setResult(null);
    setError(null);
  }, [resolved]);

  const render = (event: FormEvent) => {
    event.preventDefault();
    if (!version.data) return;
    setBusy(true);
    setError(null);
    setResult(null);
    // An empty field is not sent: the server names every variable that is missing.
    const variables: Record<string, string> = {};
    for (const name of version.data.variables) if (values[name]) variables[name] = values[name];
    const target = resolved.startsWith('label:') ? { label: resolved.slice(6) } : { version: Number(resolved.slice(2)) };
    prompts
      .render(prompt.id, { ...target, variables })
      .then(setResult)
      .catch((e: unknown) => setError(e))
      .finally(() => setBusy(false));
  };

  return (
    <Panel heading="render-heading" title="Render preview">
      <form onSubmit={render}>
        <FormField label="Version or label" hint="Each variable of that version gets a field below; an empty field counts as not given.">
          {(control) => (
            <select {...control} value={ref} onChange={(e) => setRef(e.target.value)} style={{ maxWidth: 360 }}>
              {labels.length > 0 && (
                <optgroup label="Labels">
                  {labels.map(([label, v]) => (
                    <option key={label} value={`label:${label}`}>
                      {label} (v{v})
                    </option>
                  ))}
                </optgroup>
              )}
              <optgroup label="Versions">
                <option value={LATEST}>v{prompt.latestVersion} (latest)</option>
                {Array.from({ length: prompt.latestVersion - 1 }, (_, i) => prompt.latestVersion - 1 - i).map((v) => (
                  <option key={v} value={`v:${v}`}>
                    v{v}
                  </option>
                ))}
              </optgroup>
            </select>
          )}
        </FormField>
        {version.error !== undefined && <ErrorBox error={version.error} onRetry={version.reload} />}
        {version.loading && !version.data && <Loading label="Loading the version…" />}
        {version.data && (
          <>
            {version.data.variables.length === 0 ? (
              <p className="muted">v{version.data.version} has no variables: it renders as written.</p>
            ) : (
              <fieldset className="form-section">
                <legend>Variables of v{version.data.version}</legend>
                <div className="variables-grid">
                  {version.data.variables.map((name) => (
                    <FormField key={name} label={name}>
                      {(control) => (
                        <textarea
                          {...control}
                          rows={1}
                          style={{ minHeight: 38 }}
                          value={values[name] ?? ''}
                          onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                        />
                      )}
                    </FormField>
                  ))}
                </div>
              </fieldset>
            )}
            <Button type="submit" variant="primary" disabled={busy || version.loading}>
              {busy ? 'Rendering…' : 'Render'}
            </Button>
          </>
        )}
      </form>
      {error !== null && (
        <ErrorBox error={error} fields={{ variables: 'Variables', 'variables/*': 'Variable {n}', version: 'Version or label', label: 'Version or label' }} />
      )}
      {result && (
        <div style={{ marginTop: 12 }} aria-live="polite">
          <h3 style={{ fontSize: '0.95rem', margin: '0 0 6px' }}>Rendered</h3>
          <TemplateView template={result.rendered} label="Rendered result" />
        </div>
      )}
    </Panel>
  );
}
