import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { noCycle } from '../scripts/eslint-no-cycle.js';

// The local no-cycle rule (scripts/eslint-no-cycle.js, on in eslint.config.js) on modules written here.
describe('the no-cycle lint rule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-cycle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  const lint = async (name: string) => {
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { sightline: { rules: { 'no-cycle': noCycle } } },
          rules: { 'sightline/no-cycle': 'error' },
        },
      ],
    });
    const [result] = await eslint.lintFiles([join(dir, name)]);
    return result!.messages.map((m) => m.message);
  };

  it('reports an import that closes a cycle, through type-only imports and re-exports, with the cycle', async () => {
    write('a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
    write('b.ts', "export { c as b } from './c.js';\n");
    write('c.ts', "import type { A } from './a.js';\nexport const c = 1 as unknown as A;\n");
    expect(await lint('a.ts')).toEqual(['Import cycle: a.ts -> b.ts -> c.ts -> a.ts']);
    expect(await lint('c.ts')).toEqual(['Import cycle: c.ts -> a.ts -> b.ts -> c.ts']);
  });

  it('is silent on a tree, on packages, and on imports of missing files', async () => {
    write(
      'd.ts',
      "import { e } from './e.js';\nimport { f } from './f.js';\nimport ts from 'typescript';\nimport { x } from './missing.js';\nexport const d = [e, f, ts, x];\n",
    );
    write('e.ts', "import { f } from './f.js';\nexport const e = f;\n");
    write('f.ts', 'export const f = 1;\n');
    expect(await lint('d.ts')).toEqual([]);
  });
});
