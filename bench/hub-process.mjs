// One hub for bench/run.mjs, in its own process (so its CPU time and RSS are its own): the plugins `hub serve`
// loads for its config, an npm registry in front of $UPSTREAM, logging and the audit log on, rate limits out of the way.
// $AUTH=token: no anonymous reads, and a reader's token is printed. Prints {url, pid, token} as a JSON line;
// stops on SIGTERM. SIGUSR2 starts counting the bytes allocated on the JS heap; the next SIGUSR2 stops and prints
// {allocatedBytes} as a JSON line (bench/run.mjs divides it by the requests served in between). With
// $BENCH_HEAP_PROF=file, the same span is also sampled by V8's heap profiler (garbage included) into that
// .heapprofile (open it in Chrome's DevTools, Memory tab): where the allocated bytes come from.
import fs from 'node:fs';
import inspector from 'node:inspector';
import v8 from 'node:v8';
import { holdYoungGeneration } from '@hub/runtime/startup-heap';

// As `hub serve` starts: the young generation held while the runtime and plugins load (decision 0032).
holdYoungGeneration();
const { benchHub } = await import('./bench-hub.mjs');

const dir = process.env.HUB_DIR;
const token = process.env.AUTH === 'token';
const hub = await benchHub({
  dir,
  logLevel: 'info',
  toml: `
[auth]
anonymous = ${token ? '[]' : '["source:read"]'}
[cache]
verify_reads = ${process.env.VERIFY_READS === 'false' ? 'false' : 'true'}
[[registries]]
name = "npm"
type = "npm"
upstream = "${process.env.UPSTREAM}"
`,
});
let issued;
if (token) {
  await hub.services.users.create({ id: 'bench-reader', roles: ['reader'] });
  issued = (await hub.services.tokens.issue({ user_id: 'bench-reader' })).token;
}
const url = await hub.listen();
process.stdout.write(`${JSON.stringify({ url, pid: process.pid, token: issued })}\n`);
// Allocated = what each GC freed + how much more the heap holds at the end than at the start.
let counting;
process.on('SIGUSR2', () => {
  if (!counting) {
    counting = { profiler: new v8.GCProfiler(), usedAtStart: v8.getHeapStatistics().used_heap_size };
    counting.profiler.start();
    if (process.env.BENCH_HEAP_PROF) {
      counting.session = new inspector.Session();
      counting.session.connect();
      counting.session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    return;
  }
  const { session } = counting;
  session?.post('HeapProfiler.stopSampling', (err, r) => {
    if (!err) fs.writeFileSync(process.env.BENCH_HEAP_PROF, JSON.stringify(r.profile));
    session.disconnect();
  });
  const { statistics } = counting.profiler.stop();
  let freed = 0;
  for (const gc of statistics)
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  const allocatedBytes = freed + v8.getHeapStatistics().used_heap_size - counting.usedAtStart;
  counting = undefined;
  process.stdout.write(`${JSON.stringify({ allocatedBytes, gcs: statistics.length })}\n`);
});
process.once('SIGTERM', () => void hub.close().then(() => process.exit(0)));
