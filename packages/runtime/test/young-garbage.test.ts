import { constants, PerformanceObserver } from 'node:perf_hooks';
import t from 'tap';
import { upstreamBytesReleased } from '../src/cache/young-garbage.js';

/** Scavenges (minor collections) seen while `fn` runs and just after. */
async function scavengesDuring(fn: () => void): Promise<number> {
  let seen = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) seen++;
  });
  obs.observe({ entryTypes: ['gc'] });
  fn();
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return seen;
}

t.test('every few MiB of released upstream bytes runs one scavenge, and no global gc() appears', async (t) => {
  const MiB = 1024 * 1024;
  t.ok((await scavengesDuring(() => upstreamBytesReleased(4 * MiB))) >= 1, 'four MiB: a scavenge');
  t.ok(
    (await scavengesDuring(() => {
      for (let i = 0; i < 64; i++) upstreamBytesReleased(MiB);
    })) >= 16,
    '64 MiB in 1 MiB chunks: one every 4 MiB',
  );
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'the collector is not exposed to other code');
});
