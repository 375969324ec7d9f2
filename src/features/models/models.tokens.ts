/**
 * Token counts estimated for model runs that report none (streams whose client asked for no usage,
 * embeddings some instrumentations record without it): the texts a run sent and received, counted with
 * `gpt-tokenizer`'s o200k_base encoding (GPT-4o's, and as near as any one encoding gets for other
 * models). Loaded on first use: an instance that never estimates never holds its tables (about 35 MB).
 *
 * Bounded whatever a client sends: byte-pair encoding is quadratic in the length of one piece of text
 * (200,000 letters without a space took 90 s), so runs of more than PIECE characters without a space, or
 * of spaces, are counted in pieces of PIECE; a run's texts past MAX_RUN_CHARS are not estimated at all;
 * and one call estimates at most MAX_CALL_CHARS in all (the rest of its runs keep no usage).
 */

type CountTokens = (text: string) => number;
let countTokens: CountTokens | null = null;

/** Loads the tokenizer, once per process. */
export async function loadTokenizer(): Promise<void> {
  countTokens ??= (await import('gpt-tokenizer/encoding/o200k_base')).countTokens as CountTokens;
}

const PIECE = 64;
export const MAX_RUN_CHARS = 262_144;
export const MAX_CALL_CHARS = 2_000_000;
const LONG_RUN = new RegExp(`\\S{${PIECE + 1},}|\\s{${PIECE + 1},}`, 'g');

/** Tokens of one text, its long runs of letters or spaces counted piece by piece. */
function tokensOf(text: string, count: CountTokens): number {
  let total = 0;
  let rest = '';
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    for (let i = 0; i < match[0].length; i += PIECE) total += count(match[0].slice(i, i + PIECE));
    rest += `${text.slice(last, match.index)} `;
    last = match.index + match[0].length;
  }
  return total + count(last === 0 ? text : rest + text.slice(last));
}

/** What one call may still estimate, in characters. */
export class EstimateBudget {
  constructor(public chars = MAX_CALL_CHARS) {}
}

/**
 * The tokens of `texts`, or null when they are more than a run's bound, more than the call has left, or
 * the tokenizer is not loaded. Spends the call's budget.
 */
export function estimateTokens(texts: readonly string[], budget: EstimateBudget): number | null {
  const count = countTokens;
  if (count === null) return null;
  let chars = 0;
  for (const text of texts) chars += text.length;
  if (chars > MAX_RUN_CHARS || chars > budget.chars) return null;
  budget.chars -= chars;
  let total = 0;
  for (const text of texts) if (text !== '') total += tokensOf(text, count);
  return total;
}
