// A local ESLint rule: the floor plan of src/features/. Features stand in tiers, each importing only
// from the tiers below it (and, within a tier, only from the features listed before it), and always
// through the other feature's face, its `index.ts`; but a feature's wire schemas and pure rules
// (`*.schemas.ts`, `*.rules.ts`), which the SDK and the dashboard compile too, import only other
// features' schemas and rules files, by name, never a face (a face would pull routes and database code
// into the clients' programs). The kernel (lib/, db/, auth/, schemas/, config.ts,
// deps.ts, api-document.ts and features/page-route.ts) imports no feature at all. Suites (`*.test.ts`, `*.test-support.ts`) may reach
// anything: a test drives the whole service. ARCHITECTURE.md, Tiers, draws the same list.
import { dirname, relative, resolve, sep } from 'node:path';

/** The tiers, bottom up; within a tier, a feature may import those listed before it. */
export const TIERS = [
  { name: 'accounts', features: ['tokens', 'organizations', 'auth', 'me', 'system', 'audit'] },
  { name: 'catalog', features: ['projects', 'models', 'prompts'] },
  { name: 'query', features: ['query'] },
  { name: 'records', features: ['runs', 'traces', 'sessions', 'otlp'] },
  { name: 'scores', features: ['scores'] },
  { name: 'quality', features: ['annotations', 'model-connections', 'datasets', 'experiments', 'evaluators', 'monitors'] },
  { name: 'surfaces', features: ['export', 'views', 'lifecycle', 'dashboard', 'langfuse'] },
];

const RANK = new Map(TIERS.flatMap((tier) => tier.features).map((feature, rank) => [feature, rank]));
const TIER_OF = new Map(TIERS.flatMap((tier) => tier.features.map((feature) => [feature, tier.name])));
const KERNEL = ['lib', 'db', 'auth', 'schemas', 'config.ts', 'deps.ts', 'api-document.ts'];
const SUITE = /\.test(-support)?\.tsx?$/;
/** Declarations the clients (packages/client, web) compile: light files, free of routes and storage. */
const LIGHT = /\.(schemas|rules)\.ts$/;

/** Where a file stands: { src: path below src/ split in parts } or null outside src/. */
function placeOf(file, root) {
  const rel = relative(root, file);
  if (rel.startsWith('..') || !rel.startsWith(`src${sep}`)) return null;
  return rel.split(sep).slice(1);
}

/** @type {import('eslint').Rule.RuleModule} */
export const tiers = {
  meta: {
    type: 'problem',
    docs: { description: 'Features import only the tiers below them, through their faces (ARCHITECTURE.md, Tiers)' },
    schema: [],
    messages: {
      kernel: '{{from}} is kernel: it never imports a feature (features/{{to}}); inject what it needs from buildApp.',
      up: 'features/{{from}} ({{fromTier}}) may not import features/{{to}} ({{toTier}}): a feature imports only the tiers below it and, in its own tier, the features listed before it (scripts/eslint-tiers.js). Turn the call around: a listener or a parameter handed down by buildApp.',
      face: "Import features/{{to}} through its face ('…/features/{{to}}/index.js'), not {{path}}: add what you need to its index.ts.",
      light:
        'A schemas or rules file imports only the schemas and rules files of other features ({{path}} is neither): the SDK and the dashboard compile it, and must not take in routes or storage.',
      ownFace: "A feature's own files import each other directly, never through its face (index.ts): that would be a cycle.",
      unknown: 'features/{{to}} stands in no tier: add it to TIERS in scripts/eslint-tiers.js (and ARCHITECTURE.md).',
    },
  },
  create(context) {
    const file = context.filename;
    const root = context.cwd;
    const here = placeOf(file, root);
    if (!here || SUITE.test(file)) return {};
    const fromFeature = here[0] === 'features' && here.length > 2 ? here[1] : null;
    const fromKernel = KERNEL.includes(here[0]) || (here[0] === 'features' && here.length === 2);
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const there = placeOf(resolve(dirname(file), specifier), root);
      if (!there || there[0] !== 'features' || there.length < 3) return;
      const to = there[1];
      const path = there.join('/');
      if (to === fromFeature) {
        if (there.length === 3 && there[2] === 'index.js') context.report({ node, messageId: 'ownFace' });
        return;
      }
      if (fromKernel) return context.report({ node, messageId: 'kernel', data: { from: here.join('/'), to } });
      if (!RANK.has(to)) return context.report({ node, messageId: 'unknown', data: { to } });
      if (fromFeature !== null) {
        if (!RANK.has(fromFeature)) return context.report({ node, messageId: 'unknown', data: { to: fromFeature } });
        if (RANK.get(to) > RANK.get(fromFeature))
          return context.report({ node, messageId: 'up', data: { from: fromFeature, fromTier: TIER_OF.get(fromFeature), to, toTier: TIER_OF.get(to) } });
      }
      const face = there.length === 3 && there[2] === 'index.js';
      if (LIGHT.test(file)) {
        if (!LIGHT.test(path.replace(/\.js$/, '.ts'))) context.report({ node, messageId: 'light', data: { path: `features/${path}` } });
      } else if (!face) context.report({ node, messageId: 'face', data: { to, path: `features/${path}` } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
