import { Value } from '@sinclair/typebox/value';
import type { KeysetRows, Position } from '../../lib/pagination.js';
import table from './prices.json' with { type: 'json' };
import { PriceTableSchema, type BuiltinModelPrice, type BuiltinRow, type PriceTable } from './models.schemas.js';

/**
 * The built-in price table (`prices.json`, docs/prices-and-costs.md: Model prices), checked against its schema when the
 * module loads, so a malformed edit stops the server at start with the faults named. Two rows may not
 * claim the same name: which of them priced a run would be a matter of order.
 */
export function loadPriceTable(data: unknown): PriceTable {
  if (!Value.Check(PriceTableSchema, data)) {
    const faults = [...Value.Errors(PriceTableSchema, data)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`The built-in price table is malformed: ${faults.join('; ')}`);
  }
  const seen = new Map<string, string>();
  for (const row of data.models) {
    for (const name of row.match) {
      const other = seen.get(name);
      if (other !== undefined) throw new Error(`The built-in price table names ${name} twice (${other} and ${row.model}).`);
      seen.set(name, row.model);
    }
  }
  return data;
}

export const BUILTIN_TABLE: PriceTable = loadPriceTable(table);

/** The table's date as epoch milliseconds (UTC midnight). */
export const BUILTIN_DATE = Date.parse(`${BUILTIN_TABLE.date}T00:00:00.000Z`);

const keyOf = (row: BuiltinRow) => `${row.provider}/${row.model}`;
/** The table in list order: by provider, then model. */
const LISTED = [...BUILTIN_TABLE.models].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));

/**
 * A page of the built-in table (`GET /v1/models/builtin`), by provider then model. A position is
 * the row's `provider/model`, so a walk continues where it was even across a new table.
 */
export function listBuiltinPrices(
  filters: { model?: string | undefined; provider?: string | undefined },
  after: Position | null,
  take: number,
): KeysetRows<BuiltinRow> {
  const model = filters.model?.toLowerCase();
  const rows = LISTED.filter(
    (row) =>
      (after === null || keyOf(row) > after[1]) &&
      (filters.provider === undefined || row.provider === filters.provider) &&
      (model === undefined || row.model.includes(model) || row.match.some((name) => name.includes(model))),
  ).slice(0, take);
  return { rows, positionOf: (row) => [0, keyOf(row)] };
}

export function toBuiltinPrice(row: BuiltinRow): BuiltinModelPrice {
  return { ...row, match: [...row.match], currency: BUILTIN_TABLE.currency, effectiveFrom: new Date(BUILTIN_DATE).toISOString() };
}
