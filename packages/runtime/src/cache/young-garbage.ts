import v8 from 'node:v8';
import vm from 'node:vm';

/** Upstream bytes between two scavenges. */
const BYTES_PER_SCAVENGE = 4 * 1024 * 1024;

let scavenge: ((options: { type: 'minor' }) => void) | null | undefined;
let since = 0;

/**
 * Counts upstream bytes a fetch has written and let go of; every 16 MiB, one scavenge (decision 0033).
 *
 * Why: every chunk a socket reads is an ArrayBuffer of its own, dead once it is spooled and hashed. V8 frees
 * such buffers when a scavenge finds them, and scavenges come with JS allocation, which a spooling fetch does
 * little of (a few KB per 64 KiB chunk): a 200 MiB fetch filled no young generation, and V8's own trigger for
 * external memory waits for 64 MB of it. A scavenge of a young generation that holds little costs ~50 µs.
 */
export function upstreamBytesReleased(bytes: number): void {
  since += bytes;
  if (since < BYTES_PER_SCAVENGE) return;
  since = 0;
  if (scavenge === undefined) scavenge = exposeGc();
  scavenge?.({ type: 'minor' });
}

/** V8's gc() for this module only: exposed in a new context and the flag put back, so no global `gc` appears. */
function exposeGc(): typeof scavenge {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as typeof scavenge;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
