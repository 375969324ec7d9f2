import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../schemas/common.js';
import { SCORE_DATA_TYPES } from '../../schemas/records.js';

/** The most score summaries a listed run, trace or session carries (the first by name). */
export const MAX_SUMMARIES = 50;

/**
 * What the scores of one name (and data type) on an item come to. Dependency-free of the runs feature,
 * whose schemas it is part of (the runs, traces and sessions items carry it).
 */
export const ScoreSummarySchema = Type.Object(
  {
    name: Type.String(),
    dataType: StringEnum(SCORE_DATA_TYPES),
    value: Type.Union([Type.Number(), Type.String()], {
      description:
        'numeric: the mean; boolean: the share of true (0..1); categorical: the most frequent label (a tie goes to the label first in code-point order)',
    }),
    count: Type.Integer({ minimum: 1, description: 'How many scores of this name and type the item has' }),
  },
  { title: 'ScoreSummary', additionalProperties: false },
);
export type ScoreSummary = Static<typeof ScoreSummarySchema>;

/** An item's `scores`: its own scores' summaries (not its runs' or its trace's), sorted by name. */
export const ScoreSummaries = (item: string) =>
  Type.Array(ScoreSummarySchema, {
    maxItems: MAX_SUMMARIES,
    description:
      `The scores given to the ${item} itself, summarized per name (and data type, should one name have been given values of two), ` +
      `sorted by name in code-point order; at most ${MAX_SUMMARIES} (the first by name); [] when it has none`,
  });
