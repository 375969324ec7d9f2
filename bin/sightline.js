#!/usr/bin/env node
// Entry point for `npx sightline …` and `npm start`: builds the TypeScript first when needed.
import { ensureBuilt } from '../scripts/build-if-needed.js';

ensureBuilt();
const { main } = await import('../dist/cli.js');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
