// A run to create without its required startTime: must not compile.
import type { RunCreate } from '../src/index.js';

export const run: RunCreate = { name: 'x', kind: 'tool' };
