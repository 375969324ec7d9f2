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

// Two hops (ARCHITECTURE.md): route → repository function → database. Route modules, the sign-in
// resolution, the CLI and the monitors' scheduling and delivery modules hold no SQL of their own.

const QUERY_BUILDER_CALLS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom']);

/** The Kysely query builder calls and sql`` templates in a module's source, each as `line: text`. */
function queriesIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const note = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${line + 1}: ${node.getText(source).split('\n')[0]}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : null;
      if (name !== null && QUERY_BUILDER_CALLS.has(name)) note(node);
    }
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sql') note(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no SQL outside the repositories', () => {
  const guarded = [
    ...sourceFiles(FEATURES).filter((f) => f.endsWith('.routes.ts')),
    join(FEATURES, 'auth', 'signin.ts'),
    join(src, 'cli.ts'),
    join(FEATURES, 'monitors', 'monitors.scheduler.ts'),
    join(FEATURES, 'monitors', 'monitors.webhooks.ts'),
  ];

  it('finds every kind of query in a sample, and none in comments, strings or look-alikes', () => {
    const sample = [
      "await db.selectFrom('runs').selectAll().execute();",
      "await trx.insertInto('runs').values(row).execute();",
      "await db\n  .updateTable('runs')\n  .set({ name })\n  .execute();",
      "await db.deleteFrom('runs').execute();",
      'query.where(sql<SqlBool>`a < b`);',
      'const raw = sql`select 1`;',
      "// db.selectFrom('runs') in a comment",
      'const text = "db.deleteFrom(\'runs\')";',
      "await listRuns(db, projectId); selectFromCache(); db.selectFromAll?.('x');",
    ].join('\n');
    expect(queriesIn('sample.ts', sample).map((q) => q.split(':')[0])).toEqual(['1', '2', '3', '7', '8', '9']);
  });

  it('route modules, signin.ts, cli.ts, the scheduler and the webhook sender call repository functions, never the query builder', () => {
    expect(guarded.filter((f) => f.endsWith('.routes.ts')).length).toBeGreaterThanOrEqual(10);
    const offending = guarded.flatMap((file) => queriesIn(file, readFileSync(file, 'utf8')).map((q) => `${relative(root, file)}:${q}`));
    expect(offending).toEqual([]);
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
    /** The cycles of a graph given as module → the modules it imports. */
    const cycles = (imports: Record<string, string[]>) => cyclesIn(new Map(Object.entries(imports)));
    expect(cycles({ a: ['b'], b: ['a'] })).toEqual(['a -> b -> a']);
    expect(cycles({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })).toEqual(['a -> b -> c -> a']);
    expect(cycles({ a: ['b', 'c'], b: ['c'], c: [] })).toEqual([]);
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
    expect(edges.get('client.ts')).toContain('records.ts');
    expect(cyclesIn(edges)).toEqual([]);
  });
});
