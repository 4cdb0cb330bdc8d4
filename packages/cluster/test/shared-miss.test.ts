import { Readable } from 'node:stream';
import t from 'tap';
import type { Logger } from 'pino';
import { errors } from '@hub/runtime';
import type { FetchLeases, LeaseOutcome } from '../src/fetch-leases.js';
import type { PeerAnswer, PeerClient } from '../src/peer-stream.js';
import { createSharedFetch } from '../src/shared-fetch.js';

/** The answers of `SharedFetch.miss` for each lease and peer outcome, without a database or a second replica. */
function sharedFetch(lease: () => Promise<LeaseOutcome>, peer: PeerAnswer = { kind: 'none' }) {
  const warnings: string[] = [];
  const asked: string[] = [];
  const leases: FetchLeases = { acquire: lease };
  const peers: PeerClient = {
    async fetch(peerUrl) {
      asked.push(peerUrl);
      return peer;
    },
    close: async () => {},
  };
  const log = { warn: (_: object, msg: string) => warnings.push(msg) } as unknown as Logger;
  return { shared: createSharedFetch({ leases, peers, log }), warnings, asked };
}

t.test('the lease holder fetches, and done() releases the lease', async (t) => {
  let released = 0;
  const { shared, asked } = sharedFetch(async () => ({ held: true, release: () => released++ }));
  const answer = await shared.miss('files', 'a.bin');
  t.equal(answer.kind, 'fetch');
  if (answer.kind === 'fetch') answer.done();
  t.equal(released, 1, 'released');
  t.same(asked, [], 'no peer asked');
});

t.test('without the database the miss fetches here, logged', async (t) => {
  const { shared, warnings } = sharedFetch(async () => {
    throw new Error('connection refused');
  });
  const answer = await shared.miss('files', 'a.bin');
  t.equal(answer.kind, 'fetch');
  if (answer.kind === 'fetch') answer.done();
  t.same(warnings, ['fetch lease not taken; fetching without one']);
});

t.test("another replica's lease: its stream or its own failure is the answer", async (t) => {
  const other = async (): Promise<LeaseOutcome> => ({
    held: false,
    peerUrl: 'http://b:8080',
    expiresAt: Date.now() + 10_000,
  });
  const body = Readable.from([Buffer.from('bytes')]);
  const streamed = sharedFetch(other, { kind: 'stream', contentType: 'application/octet-stream', size: 5, body });
  t.match(await streamed.shared.miss('files', 'a.bin'), { kind: 'stream', size: 5, body });
  t.same(streamed.asked, ['http://b:8080']);
  const error = errors.notFound('a.bin is not upstream');
  const failed = sharedFetch(other, { kind: 'error', error });
  t.same(await failed.shared.miss('files', 'a.bin'), { kind: 'error', error });
  const finished = sharedFetch(other, { kind: 'none' });
  t.same(
    await finished.shared.miss('files', 'a.bin'),
    { kind: 'look-again' },
    'the owner finished or failed: look for its row',
  );
  t.same(finished.warnings, []);
});

t.test('a leader that does not answer (or published no address) is waited for until its lease lapses', async (t) => {
  const expiresAt = Date.now() + 300;
  const silent = sharedFetch(async () => ({ held: false, peerUrl: 'http://b:8080', expiresAt }), {
    kind: 'unreachable',
    reason: 'ECONNREFUSED',
  });
  t.same(await silent.shared.miss('files', 'a.bin'), { kind: 'look-again' });
  t.ok(Date.now() >= expiresAt, 'answered once the lease lapsed');
  t.same(silent.warnings, ['the replica fetching this artifact does not answer; waiting for its lease to lapse']);
  const started = Date.now();
  const unpublished = sharedFetch(async () => ({ held: false, peerUrl: null, expiresAt: Date.now() - 5_000 }));
  t.same(await unpublished.shared.miss('files', 'a.bin'), { kind: 'look-again' });
  t.same(unpublished.asked, [], 'no address, no peer request');
  t.ok(Date.now() - started < 1000, 'a lapsed lease: looked again at once (50 ms)');
  t.equal(unpublished.warnings.length, 1);
});
