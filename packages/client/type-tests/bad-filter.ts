// A filter the runs list does not have: must not compile.
import type { Sightline } from '../src/index.js';

declare const client: Sightline;
export const list = client.runs.list('prj_1', { stauts: 'failed' });
