import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Layers only point down (ARCHITECTURE.md): lib/, db/ and auth/ know nothing of features; what auth/
// needs from a feature, app.ts injects. Until a lint rule takes this over, this test holds the line.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const LOWER_LAYERS = ['lib', 'db', 'auth'];
const FEATURES = join(src, 'features');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(c|m)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file names: static and type-only imports, re-exports and dynamic `import()`. */
function importSpecifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + sep);
}

describe('layers only point down', () => {
  const files = LOWER_LAYERS.flatMap((layer) => sourceFiles(join(src, layer)));

  it('reads the import specifiers of every file in src/lib, src/db and src/auth', () => {
    expect(files.length).toBeGreaterThan(20);
    for (const layer of LOWER_LAYERS)
      expect(
        files.some((f) => isUnder(f, join(src, layer))),
        layer,
      ).toBe(true);
    // The reader sees each kind of import, so an empty answer means "no imports", never "not read".
    expect(importSpecifiers(join(src, 'lib', 'cors.ts'))).toContain('./problems.js');
    expect(importSpecifiers(join(src, 'db', 'index.ts'))).toContain('pg');
    const sample = ts.preProcessFile("import type { A } from './a.js';\nexport { B } from './b.js';\nconst c = await import('./c.js');", true, true);
    expect(sample.importedFiles.map((f) => f.fileName)).toEqual(['./a.js', './b.js', './c.js']);
  });

  it('src/lib, src/db and src/auth never import from src/features', () => {
    const upward: string[] = [];
    for (const file of files) {
      for (const specifier of importSpecifiers(file)) {
        const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier;
        const intoFeatures = specifier.startsWith('.') ? isUnder(target, FEATURES) : /(^|\/)src\/features\//.test(specifier);
        if (intoFeatures) upward.push(`${relative(root, file)} imports ${specifier}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

/** The import cycles of a graph (module → the modules it imports), each as `a -> b -> a`. */
function cyclesIn(edges: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]): void => {
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), node, next].join(' -> '));
      else if (!state.has(next)) visit(next, [...path, node]);
    }
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node, []);
  return found;
}

describe('the client package has no import cycles', () => {
  const dir = join(root, 'packages', 'client', 'src');

  it('the cycle finder finds cycles, short and long, and nothing in a tree', () => {
    expect(
      cyclesIn(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual(['a -> b -> a']);
    expect(
      cyclesIn(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual(['a -> b -> c -> a']);
    expect(
      cyclesIn(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('packages/client/src imports form no cycle (type-only imports included)', () => {
    const files = sourceFiles(dir);
    expect(files.length).toBeGreaterThan(5);
    const module = (file: string) => relative(dir, file);
    const edges = new Map(
      files.map((file) => [
        module(file),
        [
          ...new Set(
            importSpecifiers(file)
              .filter((s) => s.startsWith('.'))
              .map((s) => module(resolve(dirname(file), s)).replace(/\.js$/, '.ts')),
          ),
        ],
      ]),
    );
    expect(edges.get('client.ts')).toContain('batch.ts');
    expect(cyclesIn(edges)).toEqual([]);
  });
});
