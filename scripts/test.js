// Runs the whole Vitest suite and ends with one plain summary line: "N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'sightline-vitest-'));
const report = join(dir, 'report.json');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
let summary = null;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  summary = `${json.numPassedTests} passed, ${json.numFailedTests} failed, ${json.numPendingTests + json.numTodoTests} skipped`;
} catch {
  // no report: the run itself failed to start; its exit code says so
}
rmSync(dir, { recursive: true, force: true });
if (summary) console.log(`\n${summary}`);
process.exit(run.status ?? 1);
