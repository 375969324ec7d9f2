// A V8 CPU profile (.cpuprofile, written by `node --cpu-prof`) summarized: where the process spent its
// time by itself (self time), by package and by function. Packages: a dependency by its name under
// node_modules, `sightline <folder>` for the server's own built code, `node` for Node's internals, and V8's
// own entries (garbage collector, program, idle) as they are.
import { readFileSync } from 'node:fs';

function packageOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0)
    return `sightline ${
      url
        .slice(dist + '/dist/'.length)
        .split('/')
        .slice(0, -1)
        .join('/') || '.'
    }`;
  return 'other';
}

function locationOf({ url, lineNumber }) {
  if (!url) return '';
  const modules = url.lastIndexOf('/node_modules/');
  const dist = url.indexOf('/dist/');
  const short = modules >= 0 ? url.slice(modules + '/node_modules/'.length) : dist >= 0 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
  return `${short}:${lineNumber + 1}`;
}

/**
 * `{ totalMs, busyMs, windowed, packages: [{ name, ms, share }], functions: [{ name, location, package, ms, share }] }`,
 * the top `top` of each. `window` (`{ fromUs, toUs }` on the monotonic clock, which V8 times samples by on
 * Linux): only the samples taken then, if there are any (`windowed` says whether it was so).
 */
export function summarizeProfile(file, window = null, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  // timeDeltas[i] is the time from the previous sample to sample i: spent where sample i found the process.
  const at = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) at.push((t += profile.timeDeltas[i] ?? 0));
  const inWindow = (i) => window && at[i] >= window.fromUs && at[i] <= window.toUs;
  const windowed = profile.samples.some((_, i) => inWindow(i));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    if (!windowed || inWindow(i)) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const packages = new Map();
  const functions = new Map();
  let total = 0;
  for (const [id, ms] of self) {
    const frame = nodes.get(id).callFrame;
    const pkg = packageOf(frame);
    const key = `${frame.functionName || '(anonymous)'}\u0000${locationOf(frame)}`;
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    const f = functions.get(key) ?? { name: frame.functionName || '(anonymous)', location: locationOf(frame), package: pkg, ms: 0 };
    f.ms += ms;
    functions.set(key, f);
    total += ms;
  }
  const idle = packages.get('(idle)') ?? 0;
  const busy = total - idle;
  const rank = (list) =>
    list
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((x) => ({ ...x, share: x.ms / busy }));
  return {
    totalMs: total,
    busyMs: busy,
    windowed,
    packages: rank([...packages].filter(([name]) => name !== '(idle)').map(([name, ms]) => ({ name, ms }))),
    functions: rank([...functions.values()].filter((f) => f.name !== '(idle)')),
  };
}

/** The summary as Markdown tables (shares of the time the process was not idle). */
export function profileMarkdown(summary) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  return [
    `Busy ${Math.round(summary.busyMs).toLocaleString('en-US')} ms of ${Math.round(summary.totalMs).toLocaleString('en-US')} ms sampled` +
      (summary.windowed ? ' while the measured requests were sent (start and warm-up left out).' : ' over the whole process (start and warm-up included).') +
      ' Time inside a synchronous native call (better-sqlite3 runs SQLite in the caller) is the self time of the JavaScript function that made it: ' +
      "kysely's SQLite `executeQuery` is SQLite's own work.",
    '',
    '| Package | Self ms | Share of busy |',
    '|---|---|---|',
    ...summary.packages.map((p) => `| ${p.name} | ${Math.round(p.ms).toLocaleString('en-US')} | ${pct(p.share)} |`),
    '',
    '| Function | Where | Package | Self ms | Share of busy |',
    '|---|---|---|---|---|',
    ...summary.functions.map(
      (f) => `| ${f.name.replace(/\|/g, '\\|')} | ${f.location} | ${f.package} | ${Math.round(f.ms).toLocaleString('en-US')} | ${pct(f.share)} |`,
    ),
  ].join('\n');
}
