// A local ESLint rule: no import cycles between the repository's own modules (relative imports,
// type-only ones included). Each import that leads back to the file being linted is reported with the
// cycle it closes. Written here rather than taken from eslint-plugin-import-x, whose resolver ships
// per-platform native packages.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const EXTENSIONS = ['.ts', '.tsx', '.js', '.mjs', '/index.ts', '/index.tsx'];
const importsCache = new Map();

/** The file a relative specifier names (`./x.js` is `./x.ts` in TypeScript sources), or null. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.(js|jsx|mjs)$/, '');
  return [target, ...EXTENSIONS.map((ext) => stem + ext)].find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile()) ?? null;
}

/** The repository files a file imports (static, type-only, re-exports, dynamic). */
function importsOf(file) {
  let found = importsCache.get(file);
  if (!found) {
    const text = readFileSync(file, 'utf8');
    found = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((f) => resolveImport(file, f.fileName))
      .filter((f) => f !== null);
    importsCache.set(file, found);
  }
  return found;
}

/** A path of imports from `start` back to `goal`, or null. */
function pathBack(start, goal) {
  const seen = new Set();
  const stack = [[start, [start]]];
  while (stack.length > 0) {
    const [file, path] = stack.pop();
    if (file === goal) return path;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of importsOf(file)) stack.push([next, [...path, next]]);
  }
  return null;
}

export const noCycle = {
  meta: { type: 'problem', docs: { description: 'Disallow import cycles between repository modules' }, schema: [] },
  create(context) {
    const file = context.filename;
    importsCache.delete(file); // the file as it is now
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string') return;
      const target = resolveImport(file, specifier);
      if (!target) return;
      const path = pathBack(target, file);
      if (path) {
        const cwd = context.cwd;
        context.report({ node, message: `Import cycle: ${[file, ...path].map((f) => relative(cwd, f)).join(' -> ')}` });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
