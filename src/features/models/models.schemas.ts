import { Type, type Static } from '@sinclair/typebox';
import { listQuery, pageSchema, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, recordTimes, StringEnum } from '../../schemas/common.js';

/**
 * A model name or match pattern, as runs name models (`gpt-4o`, `openai/gpt-4o`,
 * `anthropic.claude-3-5-sonnet-20241022-v2:0`); a trailing `*` matches any rest (`ft:gpt-4o-mini:acme:*`).
 */
export const MODEL_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,198}\\*?$';
/** A provider as runs record it (`openai`, `aws.bedrock`, `gcp.vertex_ai`), in lower case. */
export const PROVIDER_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';

const Model = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: MODEL_PATTERN,
  description: 'A model name, matched with its date and version suffixes (`gpt-4o` prices `gpt-4o-2024-08-06`), or a prefix ending in `*`.',
});
const Provider = Type.String({ minLength: 1, maxLength: 64, pattern: PROVIDER_PATTERN });
const Price = (description: string) => Type.Number({ minimum: 0, maximum: 1_000_000, description: `${description}, USD per million tokens` });
const OptionalPrice = (description: string) => Type.Union([Price(description), Type.Null()]);
export const CurrencySchema = StringEnum(['USD'] as const, { description: 'Prices are in US dollars' });
const KindSchema = StringEnum(['chat', 'embedding'] as const);

const PriceFields = {
  inputPrice: Price('Prompt tokens, less those read from or written to the cache'),
  outputPrice: Price('Completion tokens (reasoning tokens too, unless `reasoningPrice` says otherwise)'),
  cacheReadPrice: OptionalPrice('Prompt tokens read from the cache (null: the input price)'),
  cacheWritePrice: OptionalPrice('Prompt tokens written to the cache (null: the input price)'),
  reasoningPrice: OptionalPrice('Reasoning tokens (null: the output price)'),
};

export const ModelPriceSchema = NamedRecord('ModelPrice', {
  id: Type.String(),
  model: Type.String(),
  provider: Type.Union([Type.String(), Type.Null()], { description: 'Only runs of this provider; null: any provider' }),
  ...PriceFields,
  currency: CurrencySchema,
  effectiveFrom: Type.String({
    format: 'date-time',
    description: 'Runs that start at or after this instant get this price, until a later one of the same model',
  }),
  createdBy: Type.String(),
  ...recordTimes,
});
export type ModelPrice = Static<typeof ModelPriceSchema>;

export const BuiltinModelPriceSchema = Type.Object(
  {
    model: Type.String(),
    provider: Type.String({ description: 'Who lists the price: the model maker, or the host that serves an open model' }),
    kind: KindSchema,
    match: Type.Array(Type.String(), { description: 'The names it prices, each with its date and version suffixes' }),
    ...PriceFields,
    currency: CurrencySchema,
    effectiveFrom: Type.String({ format: 'date-time', description: 'The date of the built-in table' }),
    sourceKey: Type.String({ description: 'The entry of the source table the prices were taken from' }),
  },
  { title: 'BuiltinModelPrice', additionalProperties: false },
);
export type BuiltinModelPrice = Static<typeof BuiltinModelPriceSchema>;

export const ModelPricePage = recordPage('ModelPrice');
export const BuiltinModelPricePage = pageSchema(BuiltinModelPriceSchema, 'BuiltinModelPricePage');

export const ModelPriceParams = Type.Object({ model_id: IdParam('mdl', 'Model price id') }, { additionalProperties: false });

const Filters = {
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive substring of the model' })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: PROVIDER_PATTERN, description: 'Only this provider' })),
};
export const ListModelPricesQuery = listQuery(Filters);
export const ListBuiltinPricesQuery = listQuery(Filters);

const PriceInput = {
  ...PriceFields,
  cacheReadPrice: Type.Optional(PriceFields.cacheReadPrice),
  cacheWritePrice: Type.Optional(PriceFields.cacheWritePrice),
  reasoningPrice: Type.Optional(PriceFields.reasoningPrice),
  currency: Type.Optional(CurrencySchema),
};
export const CreateModelPriceBody = Type.Object(
  {
    model: Model,
    provider: Type.Optional(Type.Union([Provider, Type.Null()], { description: 'Only runs of this provider (default: any provider)' })),
    ...PriceInput,
    effectiveFrom: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339 (default: now)' })),
  },
  { additionalProperties: false },
);
export type CreateModelPriceInput = Static<typeof CreateModelPriceBody>;

export const UpdateModelPriceBody = Type.Object(
  {
    model: Type.Optional(Model),
    provider: Type.Optional(Type.Union([Provider, Type.Null()])),
    inputPrice: Type.Optional(PriceFields.inputPrice),
    outputPrice: Type.Optional(PriceFields.outputPrice),
    cacheReadPrice: PriceInput.cacheReadPrice,
    cacheWritePrice: PriceInput.cacheWritePrice,
    reasoningPrice: PriceInput.reasoningPrice,
    currency: PriceInput.currency,
    effectiveFrom: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateModelPriceInput = Static<typeof UpdateModelPriceBody>;

/** The built-in table's file (`prices.json`), checked when it is loaded. */
export const PriceTableSchema = Type.Object(
  {
    $comment: Type.String(),
    date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
    currency: Type.Literal('USD'),
    unit: Type.Literal('per 1M tokens'),
    source: Type.Object(
      { name: Type.String(), repository: Type.String(), path: Type.String(), commit: Type.String({ pattern: '^[0-9a-f]{40}$' }), url: Type.String() },
      { additionalProperties: false },
    ),
    models: Type.Array(
      Type.Object(
        {
          model: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]*$' }),
          provider: Type.String({ pattern: PROVIDER_PATTERN }),
          // Plain TypeBox kinds (not StringEnum): the table is checked by TypeBox's own checker.
          kind: Type.Union([Type.Literal('chat'), Type.Literal('embedding')]),
          match: Type.Array(Type.String({ pattern: '^[a-z0-9][a-z0-9._-]*$' }), { minItems: 1 }),
          ...PriceFields,
          sourceKey: Type.String({ minLength: 1 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);
export type PriceTable = Static<typeof PriceTableSchema>;
export type BuiltinRow = PriceTable['models'][number];
