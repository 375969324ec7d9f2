import { useState } from 'react';
import { modelConnections } from '../../api.js';
import { actionsColumn, adding, DeleteModal, useDeletion, removing, replacing, RowActions } from '../../components/list-page.js';
import { narrow, PagedTable } from '../../components/paged.js';
import { Button, ErrorBox, Field, FormActions } from '../../components/ui.js';
import { Modal } from '../../components/modal.js';
import { fmtCost } from '../../format.js';
import { useList, useSubmit } from '../../hooks.js';
import type { CreateModelConnectionInput, ModelConnection, ModelConnectionTest } from '../../types.js';

const FIELDS = {
  name: 'Name',
  baseUrl: 'Base URL',
  model: 'Model',
  apiKey: 'API key',
  monthlyBudgetUsd: 'Monthly budget (USD)',
  pricing: 'Input price',
  'pricing/inputPerMillion': 'Input price',
  'pricing/outputPerMillion': 'Output price',
};

/**
 * A connection's form: new (every field) or an edit (its current values; the key field stays empty and
 * sends nothing unless a new key is typed: the server never gives the key back).
 */
function ConnectionForm({
  current,
  onSubmit,
  onCancel,
}: {
  current: ModelConnection | null;
  onSubmit: (body: CreateModelConnectionInput) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(current?.name ?? '');
  const [baseUrl, setBaseUrl] = useState(current?.baseUrl ?? 'https://api.openai.com/v1');
  const [model, setModel] = useState(current?.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [budget, setBudget] = useState(current ? String(current.monthlyBudgetUsd) : '10');
  const [input, setInput] = useState(current?.pricing ? String(current.pricing.inputPerMillion) : '');
  const [output, setOutput] = useState(current?.pricing ? String(current.pricing.outputPerMillion) : '');
  const priced = input.trim() !== '' || output.trim() !== '';
  const { busy, error, submit } = useSubmit(() =>
    onSubmit({
      name: name.trim(),
      baseUrl: baseUrl.trim(),
      model: model.trim(),
      monthlyBudgetUsd: Number(budget),
      ...(apiKey !== '' ? { apiKey } : {}),
      pricing: priced ? { inputPerMillion: Number(input), outputPerMillion: Number(output) } : null,
    }),
  );
  return (
    <form onSubmit={submit} aria-label={current ? `Edit the model connection ${current.name}` : 'New model connection'}>
      <Field label="Name">
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </Field>
      <Field label="Base URL" hint="An OpenAI-compatible API: requests go to …/chat/completions">
        <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required type="url" maxLength={2048} />
      </Field>
      <Field label="Model" hint="Called unless the judge prompt’s config names another">
        <input value={model} onChange={(e) => setModel(e.target.value)} required maxLength={200} placeholder="gpt-4o-mini" />
      </Field>
      <Field label="API key" hint={current?.apiKeyHint ? `Stored (${current.apiKeyHint}); type a new one to replace it` : 'Stored sealed; never shown again'}>
        <input value={apiKey} onChange={(e) => setApiKey(e.target.value)} type="password" autoComplete="off" maxLength={4096} />
      </Field>
      <Field label="Monthly budget (USD)" hint="Calls stop once this calendar month’s spend reaches it">
        <input value={budget} onChange={(e) => setBudget(e.target.value)} required inputMode="decimal" />
      </Field>
      <Field label="Input price" hint="USD per million tokens; empty: the model price table’s">
        <input value={input} onChange={(e) => setInput(e.target.value)} inputMode="decimal" />
      </Field>
      <Field label="Output price" hint="USD per million tokens">
        <input value={output} onChange={(e) => setOutput(e.target.value)} inputMode="decimal" required={priced} />
      </Field>
      <FormActions
        error={error}
        fields={FIELDS}
        busy={busy}
        disabled={name.trim() === '' || model.trim() === ''}
        submitLabel={current ? 'Save connection' : 'Create connection'}
        onCancel={onCancel}
      />
    </form>
  );
}

/** What a test call reported, in a sentence. */
function testSummary(name: string, result: ModelConnectionTest): string {
  if (result.ok) return `${name}: the model answered in JSON (${result.latencyMs} ms, ${fmtCost(result.costUsd)}).`;
  return `${name}: ${result.problem}${result.retryable ? ' (an evaluator would try again)' : ''}`;
}

/**
 * The organization's model connections (admins and owners only: the panel is shown to them alone):
 * OpenAI-compatible endpoints that LLM-as-judge evaluators call, each with a monthly budget.
 */
export function ModelConnectionsPanel() {
  const list = useList(modelConnections.list, {}, 100);
  const [editing, setEditing] = useState<ModelConnection | 'new' | null>(null);
  const deletion = useDeletion(
    (connection: ModelConnection) => modelConnections.delete(connection.id),
    (connection) => list.setItems(removing(connection)),
  );
  const [testing, setTesting] = useState<string | null>(null);
  const [report, setReport] = useState<{ ok: boolean; text: string } | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const replace = (connection: ModelConnection) => list.setItems(replacing(connection));
  const test = async (connection: ModelConnection) => {
    setTesting(connection.id);
    setReport(null);
    setFailure(null);
    try {
      const result = await modelConnections.test(connection.id);
      setReport({ ok: result.ok, text: testSummary(connection.name, result) });
      replace(await modelConnections.get(connection.id));
    } catch (error) {
      setFailure(error);
    } finally {
      setTesting(null);
    }
  };
  return (
    <>
      <p>
        <Button variant="primary" onClick={() => setEditing('new')}>
          New model connection
        </Button>
      </p>
      <PagedTable
        list={list}
        empty={{ one: 'model connection', many: 'model connections', none: 'Connect an OpenAI-compatible endpoint for LLM-as-judge evaluators.' }}
        caption="Model connections, newest first"
        columns={['Name', 'Model', narrow('Key'), 'Spent this month', ...actionsColumn(true)]}
        row={(connection) => (
          <tr key={connection.id}>
            <td className="cell-wrap">
              <strong>{connection.name}</strong>
              <div className="muted">{connection.baseUrl}</div>
            </td>
            <td>
              <code>{connection.model}</code>
            </td>
            <td className="hide-narrow">{connection.apiKeyHint ?? <span className="muted">none</span>}</td>
            <td>
              {fmtCost(connection.spentThisMonthUsd)} of {fmtCost(connection.monthlyBudgetUsd)}
            </td>
            <RowActions name={`the model connection ${connection.name}`} onEdit={() => setEditing(connection)} onDelete={() => deletion.ask(connection)}>
              <Button aria-label={`Test the model connection ${connection.name}`} disabled={testing === connection.id} onClick={() => test(connection)}>
                {testing === connection.id ? 'Testing…' : 'Test'}
              </Button>
            </RowActions>
          </tr>
        )}
      />
      {report && (
        <p role="status" aria-live="polite" className={report.ok ? undefined : 'error-box'}>
          {report.text}
        </p>
      )}
      {failure !== null && <ErrorBox error={failure} />}
      <Modal
        title={editing === 'new' || editing === null ? 'New model connection' : 'Edit model connection'}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <ConnectionForm
            key={editing === 'new' ? 'new' : editing.id}
            current={editing === 'new' ? null : editing}
            onCancel={() => setEditing(null)}
            onSubmit={async (body) => {
              if (editing === 'new') {
                const connection = await modelConnections.create(body);
                list.setItems(adding(connection));
              } else replace(await modelConnections.update(editing.id, body));
              setEditing(null);
            }}
          />
        )}
      </Modal>
      <DeleteModal of={deletion} title="Delete model connection" confirmLabel="Delete connection">
        {(connection) => (
          <p>
            Delete <strong>{connection.name}</strong>? Its key is forgotten; evaluators that use it fail until given another connection.
          </p>
        )}
      </DeleteModal>
    </>
  );
}
