import t from 'tap';
import { createVerifiedBlobs, REVERIFY_MS, SETTLE_MS } from '../src/cache/verified-blobs.js';

const SHA = 'a'.repeat(64);

t.test(
  'a verified file is trusted only under the same identity, once it has settled, for at most REVERIFY_MS',
  async (t) => {
    const now = Date.now();
    const v = createVerifiedBlobs();
    v.remember(SHA, 'dev:ino:size:mtime:ctime', now - 100, now);
    t.notOk(
      v.trusts(SHA, 'dev:ino:size:mtime:ctime'),
      'changed too recently: a write in the same tick could keep the identity',
    );
    v.remember(SHA, 'dev:ino:size:mtime:ctime', now - SETTLE_MS, now);
    t.ok(v.trusts(SHA, 'dev:ino:size:mtime:ctime'));
    t.notOk(v.trusts(SHA, 'dev:ino:size:mtime:ctime2'), 'a write in place moved ctime');
    t.notOk(v.trusts(SHA, 'dev:ino2:size:mtime:ctime'), 'a replaced file');
    v.forget(SHA);
    t.notOk(v.trusts(SHA, 'dev:ino:size:mtime:ctime'), 'forgotten when the blob is discarded');
    t.ok(REVERIFY_MS <= 60 * 60_000, 'rot below the filesystem is caught within the hour');
  },
);

t.test(
  'concurrent first reads of one file share one check; its verdict is remembered only when it matched',
  async (t) => {
    const v = createVerifiedBlobs();
    const old = Date.now() - SETTLE_MS - 1;
    let checks = 0;
    let release!: (ok: boolean) => void;
    const check = () => {
      checks++;
      return new Promise<boolean>((r) => (release = r));
    };
    const verdicts = [
      v.verify(SHA, 'id1', old, check),
      v.verify(SHA, 'id1', old, check),
      v.verify(SHA, 'id1', old, check),
    ];
    t.equal(checks, 1, 'one check for three readers');
    release(false);
    t.same(await Promise.all(verdicts), [false, false, false]);
    t.notOk(v.trusts(SHA, 'id1'), 'a mismatch is never remembered');
    t.equal(await v.verify(SHA, 'id1', old, async () => (checks++, true)), true, 'the next read checks again');
    t.equal(checks, 2);
    t.ok(v.trusts(SHA, 'id1'));
    t.equal(
      await v.verify(SHA, 'id2', old, async () => (checks++, null)),
      null,
      'no verdict when the file changed under the check',
    );
    t.notOk(v.trusts(SHA, 'id2'));
  },
);
