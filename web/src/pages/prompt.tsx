import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, prompts } from '../api.js';
import { DeleteRecordModal } from '../components/confirm.js';
import { Button, Empty, ErrorBox, Loading, PageHeader, Panel } from '../components/ui.js';
import { Modal } from '../components/modal.js';
import { fmtDate, fmtRelative } from '../format.js';
import { useAsync, useDocumentTitle, useList } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import { useSession } from '../session.js';
import type { Prompt } from '../types.js';
import { LabelBadges } from './prompts.js';
import { CompareVersions } from './prompts/compare.js';
import { FormField, useUserNames } from './prompts/controls.js';
import { LabelHistoryPanel, LabelsPanel } from './prompts/labels.js';
import { RenderPreview } from './prompts/render-preview.js';
import { NewVersionForm, VersionsPanel } from './prompts/versions.js';

/**
 * One prompt: its versions, a diff between any two, labels and their history, a render preview.
 * `?version=3` (a run's link to the version it used) opens that version in the list and the preview.
 */
export function PromptPage({ promptId }: { promptId: string }) {
  const prompt = useAsync(() => prompts.get(promptId), `prompt:${promptId}`);
  const asked = Number(useLocation().search.get('version'));
  const focus = Number.isSafeInteger(asked) && asked >= 1 ? asked : null;
  useDocumentTitle(prompt.data?.name ?? promptId, 'Prompts');
  return (
    <>
      <Link to="/prompts" className="back-link">
        ← All prompts
      </Link>
      {prompt.error !== undefined &&
        (prompt.error instanceof ApiError && prompt.error.status === 404 ? (
          <Empty title="Prompt not found">
            No prompt named <code>{promptId}</code> in this organization. <Link to="/prompts">See all prompts</Link>
          </Empty>
        ) : (
          <ErrorBox error={prompt.error} onRetry={prompt.reload} />
        ))}
      {prompt.loading && !prompt.data && <Loading label="Loading the prompt…" />}
      {prompt.data && <PromptView key={prompt.data.id} prompt={prompt.data} focus={focus} setPrompt={prompt.setData} reload={prompt.reload} />}
    </>
  );
}

function PromptView({
  prompt,
  focus,
  setPrompt,
  reload,
}: {
  prompt: Prompt;
  focus: number | null;
  setPrompt: (prompt: Prompt) => void;
  reload: () => Promise<void>;
}) {
  const { can } = useSession();
  const userName = useUserNames();
  const versions = useList(prompts.versions(prompt.id));
  const history = useList(prompts.labelHistory(prompt.id));
  const [compare, setCompare] = useState({ from: Math.max(1, prompt.latestVersion - 1), to: prompt.latestVersion });
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), 6000);
    return () => clearTimeout(timer);
  }, [notice]);

  const showCompare = (from: number, to: number) => {
    setCompare({ from, to });
    document.getElementById('compare')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  };

  return (
    <>
      <PageHeader
        title={prompt.name}
        subtitle={
          <>
            v{prompt.latestVersion} latest · created {fmtRelative(prompt.createdAt)} · updated{' '}
            <span title={fmtDate(prompt.updatedAt)}>{fmtRelative(prompt.updatedAt)}</span>
          </>
        }
        actions={
          <>
            {can('prompts:write') && (
              <Button variant="primary" onClick={() => setCreating(true)}>
                New version
              </Button>
            )}
            {can('prompts:delete') && (
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete prompt
              </Button>
            )}
          </>
        }
      />
      {notice && (
        <p className="panel" role="status" style={{ padding: '8px 16px' }}>
          {notice}
        </p>
      )}

      <Panel heading="overview-heading" title="Overview">
        <dl className="kv">
          <dt>Description</dt>
          <dd>
            <Description prompt={prompt} canWrite={can('prompts:write')} onSaved={setPrompt} />
          </dd>
          <dt>Labels</dt>
          <dd>
            <LabelBadges labels={prompt.labels} />
          </dd>
          <dt>Latest version</dt>
          <dd>v{prompt.latestVersion}</dd>
          <dt>Id</dt>
          <dd>
            <code>{prompt.id}</code>
          </dd>
        </dl>
      </Panel>

      <VersionsPanel prompt={prompt} versions={versions} userName={userName} onCompare={showCompare} focus={focus} />
      <CompareVersions
        prompt={prompt}
        from={Math.min(compare.from, prompt.latestVersion)}
        to={Math.min(compare.to, prompt.latestVersion)}
        onChange={(from, to) => setCompare({ from, to })}
      />
      <RenderPreview prompt={prompt} initialVersion={focus} />
      <div className="grid">
        <LabelsPanel
          prompt={prompt}
          canWrite={can('prompts:write')}
          onChanged={(updated) => {
            if (updated) setPrompt(updated);
            else void reload();
            history.reload();
          }}
        />
        <LabelHistoryPanel history={history} userName={userName} />
      </div>

      <Modal title={`New version of ${prompt.name}`} open={creating} onClose={() => setCreating(false)}>
        <NewVersionForm
          prompt={prompt}
          onCancel={() => setCreating(false)}
          onCreated={(version) => {
            setCreating(false);
            setNotice(`Version ${version.version} created.`);
            setCompare({ from: Math.max(1, version.version - 1), to: version.version });
            versions.reload();
            void reload();
          }}
        />
      </Modal>
      <DeleteRecordModal
        open={deleting}
        name={prompt.name}
        confirmLabel="Delete prompt"
        onClose={() => setDeleting(false)}
        remove={() => prompts.delete(prompt.id)}
        back="/prompts"
      >
        <p>
          This deletes the prompt with its {prompt.latestVersion === 1 ? 'only version' : `${prompt.latestVersion} versions`} and its labels. Applications that
          fetch it by name or label will get a 404.
        </p>
      </DeleteRecordModal>
    </>
  );
}

function Description({ prompt, canWrite, onSaved }: { prompt: Prompt; canWrite: boolean; onSaved: (prompt: Prompt) => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(prompt.description);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (!editing) {
    return (
      <span className="state-line">
        <span className="cell-wrap">{prompt.description || <span className="muted">No description</span>}</span>
        {canWrite && (
          <Button
            variant="ghost"
            className="compact"
            onClick={() => {
              setText(prompt.description);
              setError(null);
              setEditing(true);
            }}
          >
            Edit description
          </Button>
        )}
      </span>
    );
  }
  const save = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    prompts
      .update(prompt.id, { description: text.trim() })
      .then((updated) => {
        onSaved(updated);
        setEditing(false);
      })
      .catch((e: unknown) => setError(e))
      .finally(() => setBusy(false));
  };
  return (
    <form onSubmit={save}>
      <FormField label="Description">
        {(control) => (
          <textarea {...control} autoFocus rows={2} maxLength={2000} value={text} onChange={(e) => setText(e.target.value)} style={{ minHeight: 60 }} />
        )}
      </FormField>
      {error !== null && <ErrorBox error={error} fields={{ description: 'Description' }} />}
      <div className="actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save description'}
        </Button>
        <Button onClick={() => setEditing(false)}>Cancel</Button>
      </div>
    </form>
  );
}
