// A misspelt field of a run to create: must not compile.
import type { Sightline } from '../src/index.js';

declare const client: Sightline;
export const created = client.runs.create('prj_1', { nmae: 'x', kind: 'llm', startTime: '2026-11-21T10:15:30.123Z' });
