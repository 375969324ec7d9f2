/**
 * The one-line previews of a run's inputs and outputs in the runs list and a dataset's items: the server's
 * rule (src/features/traces/traces.preview.ts), so that a run reads the same here as in the traces list.
 */
export { previewOf as runPreview } from '../../../../src/features/traces/traces.preview.js';
