/** Small pieces the datasets pages and the run page's "Add to dataset" share. */
import { fmtNumber } from '../../format.js';

/** A dataset's page (at its latest version). */
export const datasetPath = (datasetId: string) => `/datasets/${encodeURIComponent(datasetId)}`;

/** `1 item`, `1,200 items`. */
export const itemsText = (count: number) => `${fmtNumber(count)} ${count === 1 ? 'item' : 'items'}`;
