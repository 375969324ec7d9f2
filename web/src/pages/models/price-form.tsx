import { useState } from 'react';
import { Field, FormActions, type FormProps } from '../../components/ui.js';
import { fromLocalInput, toLocalInput } from '../../format.js';
import { useSubmit } from '../../hooks.js';
import type { CreateModelPriceInput, ModelPrice } from '../../types.js';

type PriceKey = 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'reasoningPrice';
const PRICES: { key: PriceKey; label: string; hint?: string; required?: boolean }[] = [
  { key: 'inputPrice', label: 'Input', required: true },
  { key: 'outputPrice', label: 'Output', required: true },
  { key: 'cacheReadPrice', label: 'Cache read', hint: 'Empty: the input price' },
  { key: 'cacheWritePrice', label: 'Cache write', hint: 'Empty: the input price' },
  { key: 'reasoningPrice', label: 'Reasoning', hint: 'Empty: the output price' },
];

/** How the form names the API's fields, for the server's field faults. */
const FIELDS = {
  model: 'Model',
  provider: 'Provider',
  ...Object.fromEntries(PRICES.map(({ key, label }) => [key, label])),
  effectiveFrom: 'In force from',
};

const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
const number = (value: string) => (value.trim() === '' ? null : Number(value));

/**
 * A model price: the model (a name as runs send it, or a prefix ending in `*`), the provider it is
 * limited to, the prices in USD per million tokens and the instant from which it applies (empty: now).
 * The server checks every field and its refusal is shown as the problem it sends.
 */
export function PriceForm({ initial, submitLabel, onSubmit, onCancel }: FormProps<ModelPrice, CreateModelPriceInput>) {
  const [model, setModel] = useState(initial?.model ?? '');
  const [provider, setProvider] = useState(initial?.provider ?? '');
  const [prices, setPrices] = useState<Record<PriceKey, string>>(() => ({
    inputPrice: text(initial?.inputPrice),
    outputPrice: text(initial?.outputPrice),
    cacheReadPrice: text(initial?.cacheReadPrice),
    cacheWritePrice: text(initial?.cacheWritePrice),
    reasoningPrice: text(initial?.reasoningPrice),
  }));
  const [effectiveFrom, setEffectiveFrom] = useState(toLocalInput(initial?.effectiveFrom ?? null));
  const { busy, error, submit } = useSubmit(() =>
    onSubmit({
      model: model.trim(),
      provider: provider.trim() === '' ? null : provider.trim(),
      inputPrice: number(prices.inputPrice) ?? 0,
      outputPrice: number(prices.outputPrice) ?? 0,
      cacheReadPrice: number(prices.cacheReadPrice),
      cacheWritePrice: number(prices.cacheWritePrice),
      reasoningPrice: number(prices.reasoningPrice),
      currency: 'USD',
      ...(effectiveFrom ? { effectiveFrom: fromLocalInput(effectiveFrom) } : {}),
    }),
  );

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={submitLabel}>
      <p className="muted" style={{ marginTop: 0 }}>
        Prices in US dollars per million tokens. Runs that start at or after the effective instant get this price, until a later one of the same model; earlier
        runs keep theirs.
      </p>
      <Field label="Model" hint="As runs name it (gpt-4o also prices gpt-4o-2024-08-06), or a prefix ending in *">
        <input value={model} onChange={(e) => setModel(e.target.value)} required maxLength={200} autoFocus autoComplete="off" spellCheck={false} />
      </Field>
      <Field label="Provider" hint="Only runs of this provider (lower case, e.g. azure); empty: any provider">
        <input value={provider} onChange={(e) => setProvider(e.target.value)} maxLength={64} autoComplete="off" spellCheck={false} />
      </Field>
      <div className="sl-price-grid">
        {PRICES.map(({ key, label, hint, required }) => (
          <Field key={key} label={`${label} ($ / 1M tokens)`} hint={hint}>
            <input
              type="number"
              inputMode="decimal"
              min={0}
              step="any"
              required={required}
              value={prices[key]}
              onChange={(e) => setPrices((p) => ({ ...p, [key]: e.target.value }))}
            />
          </Field>
        ))}
      </div>
      <Field label="In force from" hint="Your local time; empty: now">
        <input type="datetime-local" step={1} value={effectiveFrom} onChange={(e) => setEffectiveFrom(e.target.value)} />
      </Field>
      <FormActions error={error} fields={FIELDS} busy={busy} disabled={model.trim() === ''} submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}
