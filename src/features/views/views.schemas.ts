import { Type, type Static } from '@sinclair/typebox';
import { listOrderProperty, listQuery, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, recordTimes, StringEnum, TrimmedText } from '../../schemas/common.js';
import { metadataFilters, runFilterProperties } from '../query/filters.schemas.js';

/** The lists a view can be of: they all take the runs list's filters. */
export const VIEW_PAGES = ['traces', 'runs', 'sessions', 'users'] as const;
export const MAX_VIEWS = 100;

/**
 * A view's filters: the lists' own query parameters (the runs list's filters, `metadata.<key>` and
 * `metadata.<key>!` included) and the runs and traces lists' `order`, the dashboard's chart `range` and its list's `scoreColumn`, validated by the same schema the lists
 * use, so a saved view never holds a filter a list would refuse.
 */
export const ViewFiltersSchema = Type.Object(
  {
    ...runFilterProperties,
    ...listOrderProperty('start time'),
    range: Type.Optional(StringEnum(['1h', '24h', '7d', '30d'] as const, { description: "The dashboard chart's range" })),
    scoreColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "The score the dashboard list's score column shows" })),
  },
  { additionalProperties: false, patternProperties: metadataFilters },
);

const Name = TrimmedText(100, 'Unique among your views of the project; no leading or trailing space');

export const SavedViewSchema = NamedRecord('SavedView', {
  id: Type.String(),
  projectId: Type.String(),
  name: Type.String(),
  page: StringEnum(VIEW_PAGES),
  filters: ViewFiltersSchema,
  ...recordTimes,
});
export type SavedView = Static<typeof SavedViewSchema>;
export const SavedViewPage = recordPage('SavedView');

export const CreateViewBody = Type.Object(
  { name: Name, page: StringEnum(VIEW_PAGES), filters: Type.Optional(ViewFiltersSchema) },
  { title: 'CreateSavedView', additionalProperties: false },
);
export const UpdateViewBody = Type.Object(
  { name: Type.Optional(Name), filters: Type.Optional(ViewFiltersSchema) },
  { title: 'UpdateSavedView', additionalProperties: false, minProperties: 1 },
);
export const ListViewsQuery = listQuery({ page: Type.Optional(StringEnum(VIEW_PAGES, { description: 'Only the views of this list' })) });
export const ViewParams = Type.Object({ project_id: IdParam('prj', 'Project id'), view_id: IdParam('vew', 'Saved view id') }, { additionalProperties: false });
