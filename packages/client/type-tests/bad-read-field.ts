// A misspelt field of a run that was read: must not compile.
import type { Run } from '../src/index.js';

declare const run: Run;
export const status = run.stauts;
