import { useState, type ReactNode } from 'react';
import { models } from '../api.js';
import { actionsColumn, adding, DeleteModal, useDeletion, FilterForm, removing, replacing, RowActions, SearchField } from '../components/list-page.js';
import { narrow, num, PagedTable } from '../components/paged.js';
import { CreateDialog, EditDialog } from '../components/forms.js';
import { NewButton, PageHeader, Panel, When } from '../components/ui.js';
import { fmtDay, fmtPrice } from '../format.js';
import { useDocumentTitle, useList } from '../hooks.js';
import { useSession } from '../session.js';
import type { BuiltinModelPrice, CreateModelPriceInput, ModelPrice } from '../types.js';
import { PriceForm } from './models/price-form.js';
import './runs/runs.css';
import './models/models.css';

const PRICE_COLUMNS = [num('Input'), num('Output'), num('Cache read', 'hide-narrow'), num('Cache write', 'hide-narrow'), num('Reasoning', 'hide-narrow')];

/** The five prices of a row, per million tokens; '—' where none is set (the input or output price applies). */
function PriceCells({ price }: { price: Pick<ModelPrice, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'reasoningPrice'> }) {
  const cell = (value: number | null, className = ''): ReactNode => <td className={`num ${className}`.trim()}>{fmtPrice(value)}</td>;
  return (
    <>
      {cell(price.inputPrice)}
      {cell(price.outputPrice)}
      {cell(price.cacheReadPrice, 'hide-narrow')}
      {cell(price.cacheWritePrice, 'hide-narrow')}
      {cell(price.reasoningPrice, 'hide-narrow')}
    </>
  );
}

/**
 * What models cost: the organization's own prices (admins add, change and delete them), which add to and
 * override the built-in table from their effective instant on, and the built-in table itself with its date.
 */
export function ModelsPage() {
  useDocumentTitle('Models');
  const { can } = useSession();
  const mayWrite = can('models:write');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ModelPrice | null>(null);
  const deletion = useDeletion(
    (price: ModelPrice) => models.delete(price.id),
    (price) => own.setItems(removing(price)),
  );
  const [search, setSearch] = useState('');
  const own = useList(models.list);
  const builtin = useList(models.builtin, { model: search.trim() || undefined });
  const tableDate = builtin.items[0]?.effectiveFrom;
  const add = async (body: CreateModelPriceInput) => own.setItems(adding(await models.create(body)));
  const save = async (body: CreateModelPriceInput, price: ModelPrice) => own.setItems(replacing(await models.update(price.id, body)));

  return (
    <>
      <PageHeader
        title="Models"
        subtitle="What model tokens cost, in US dollars per million tokens: the built-in table, and your organization’s prices, which override it from their date on."
        actions={mayWrite && <NewButton label="New price" onClick={() => setCreating(true)} />}
      />

      <Panel heading="own-prices-heading" title="Your organization’s prices">
        <PagedTable
          list={own}
          loadingLabel="Loading prices…"
          empty={{
            one: 'price',
            many: 'prices of your own',
            none: mayWrite
              ? 'Add one with “New price” to price a model the table lacks, or at your own rate.'
              : 'Admins and owners add them; until then the built-in table applies.',
          }}
          caption="The organization’s model prices, newest first"
          columns={['Model', narrow('Provider'), ...PRICE_COLUMNS, narrow('In force from'), ...actionsColumn(mayWrite)]}
          row={(price) => (
            <tr key={price.id}>
              <td className="cell-wrap">
                <code>{price.model}</code>
              </td>
              <td className="hide-narrow">{price.provider ?? <span className="muted">any</span>}</td>
              <PriceCells price={price} />
              <td className="hide-narrow sl-nowrap">
                <When iso={price.effectiveFrom} />
              </td>
              {mayWrite && <RowActions name={`the price of ${price.model}`} onEdit={() => setEditing(price)} onDelete={() => deletion.ask(price)} />}
            </tr>
          )}
        />
      </Panel>

      <Panel heading="builtin-prices-heading" title="Built-in prices">
        <p className="muted" style={{ marginTop: 0 }}>
          From LiteLLM’s public price table{tableDate ? `, as of ${fmtDay(tableDate)}` : ''}. A model’s name also prices its dated and versioned names (gpt-4o
          prices gpt-4o-2024-08-06).
        </p>
        <FilterForm label="Filter built-in prices">
          <SearchField label="Search models" value={search} onChange={setSearch} placeholder="e.g. claude" maxLength={200} autoComplete="off" />
        </FilterForm>
        <PagedTable<BuiltinModelPrice>
          list={builtin}
          loadingLabel="Loading the built-in table…"
          empty={{ one: 'model', many: 'built-in prices', filtered: search.trim() !== '', none: 'The table is empty.' }}
          caption="Built-in model prices, by provider"
          columns={['Model', narrow('Provider'), ...PRICE_COLUMNS]}
          row={(row) => (
            <tr key={`${row.provider}/${row.model}`}>
              <td className="cell-wrap">
                <code>{row.model}</code>
                {row.match.length > 1 && <div className="muted sl-price-names">also {row.match.filter((name) => name !== row.model).join(', ')}</div>}
              </td>
              <td className="hide-narrow">{row.provider}</td>
              <PriceCells price={row} />
            </tr>
          )}
        />
      </Panel>

      <CreateDialog title="New model price" open={creating} onClose={() => setCreating(false)} form={PriceForm} submitLabel="Add price" onSubmit={add} />

      <EditDialog
        title={editing ? `Edit the price of ${editing.model}` : 'Edit price'}
        item={editing}
        onClose={() => setEditing(null)}
        form={PriceForm}
        submitLabel="Save"
        onSubmit={save}
      />

      <DeleteModal of={deletion} title="Delete model price" confirmLabel="Delete price">
        {(price) => (
          <p>
            Delete the price of <strong>{price.model}</strong>? Runs recorded from now on get the built-in price (or an earlier one of yours), if any.
          </p>
        )}
      </DeleteModal>
    </>
  );
}
