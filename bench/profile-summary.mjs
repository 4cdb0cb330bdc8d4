// Summarises a V8 .cpuprofile (BENCH_CPU_PROF=dir npm run bench): self time by function and by where the code
// lives (hub's packages by name, node_modules by package, node: internals, GC, idle), so a profile can be read
// as text. Usage: node bench/profile-summary.mjs file.cpuprofile [rows=25]
import fs from 'node:fs';

const [file, rows = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs file.cpuprofile [rows]');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const ticks = new Map();
for (const id of profile.samples) ticks.set(id, (ticks.get(id) ?? 0) + 1);

/** Where a frame's code lives. */
function place({ url, functionName }) {
  if (functionName === '(garbage collector)' || functionName === '(idle)' || functionName === '(program)')
    return functionName;
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url) ?? /packages\/([^/]+)\//.exec(url);
  if (pkg) return url.includes('node_modules') ? pkg[1] : `@hub/${pkg[1]}`;
  return url.startsWith('node:') ? 'node:' + url.slice(5).split('/')[0] : url.split('/').slice(-2).join('/');
}

const fns = new Map();
const places = new Map();
let total = 0;
for (const [id, n] of ticks) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)') continue;
  total += n;
  const where = /packages\/(.+)$/.exec(callFrame.url)?.[1].replace('/dist/', '/') ?? place(callFrame);
  const fn = `${callFrame.functionName || '(anonymous)'} ${where}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  fns.set(fn, (fns.get(fn) ?? 0) + n);
  places.set(place(callFrame), (places.get(place(callFrame)) ?? 0) + n);
}
const pct = (n) => `${((n / total) * 100).toFixed(1)}%`;
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(rows));
console.log(`busy samples: ${total} (idle left out)\n\nself time by place:`);
for (const [k, n] of top(places)) console.log(`  ${pct(n).padStart(6)}  ${k}`);
console.log('\nself time by function:');
for (const [k, n] of top(fns)) console.log(`  ${pct(n).padStart(6)}  ${k}`);
