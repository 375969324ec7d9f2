import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { costOf, priceFor, type PriceMatch, type PriceOverride, type TokenUsage } from './models.pricing.js';
import { organizationPrices } from './models.repo.js';

/**
 * A run's cost and where it came from (docs/prices-and-costs.md: Model prices): the client's own figure, kept as sent,
 * else, for a run with a model and usage, what its tokens cost at the price in force when it started
 * (the organization's, else the built-in table's), with that price; else none.
 */
export interface RunCost {
  cost: number | null;
  costSource: 'client' | 'computed' | null;
  price: PriceMatch | null;
}

const NO_COST: RunCost = { cost: null, costSource: null, price: null };

/** Computed costs are kept to 12 decimals (a millionth of a millionth of a dollar): no float noise such as 0.30000000000000004. */
const roundCost = (cost: number) => Math.round(cost * 1e12) / 1e12;

export function runCost(
  given: number | null | undefined,
  run: { model: string | null; provider: string | null; usage: TokenUsage | null; startTime: number },
  prices: readonly PriceOverride[],
): RunCost {
  if (typeof given === 'number') return { cost: given, costSource: 'client', price: null };
  if (!run.model || !run.usage) return NO_COST;
  const price = priceFor(run.model, run.provider, run.startTime, prices);
  return price ? { cost: roundCost(costOf(run.usage, price)), costSource: 'computed', price } : NO_COST;
}

/** Whether pricing a run needs the organization's prices: it names a model, has usage and gives no cost. */
export const needsPrice = (run: unknown): boolean => {
  const r = run as { model?: unknown; usage?: unknown; cost?: unknown } | null;
  return typeof r?.model === 'string' && typeof r.usage === 'object' && r.usage !== null && typeof r.cost !== 'number';
};

/** The prices of a project's organization, read only when some run needs one. */
export async function projectPrices(db: Kysely<Database>, projectId: string): Promise<PriceOverride[]> {
  const project = await db.selectFrom('projects').select('organization_id').where('id', '=', projectId).executeTakeFirst();
  return project ? organizationPrices(db, project.organization_id) : [];
}
