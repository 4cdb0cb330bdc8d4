import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ANON, fixture, get, setup } from './setup.js';

t.test('a cached gem corrupted on disk (one flipped byte) is detected and fetched again', async (t) => {
  const s = await setup(t, { config: ANON });
  t.equal((await get(`${s.base}/gems/hubdemo-1.0.0.gem`)).status, 200);
  await s.hub.artifacts.idle();
  const row = (await s.hub.db('artifacts').where({ registry: 'gems' }).first()) as {
    blob_sha256: string;
    cache_key: string;
  };
  const file = path.join(
    s.hub.config.storage.path,
    'sha256',
    row.blob_sha256.slice(0, 2),
    row.blob_sha256.slice(2, 4),
    row.blob_sha256,
  );
  const bytes = fs.readFileSync(file);
  bytes[600] = bytes[600]! ^ 0xff;
  fs.writeFileSync(file, bytes);
  // What a freshly started replica sees: nothing of this gem in memory, only the bad copy on disk.
  s.hub.artifacts.forget('gems', row.cache_key);

  const res = await get(`${s.base}/gems/hubdemo-1.0.0.gem`);
  t.equal(res.status, 200);
  t.same(res.body, fixture('upstream/gems/hubdemo-1.0.0.gem'), 'the client gets the right bytes');
  t.equal(s.upstream.count('/gems/hubdemo-1.0.0.gem'), 2, 'refetched from the upstream');
  await s.hub.artifacts.idle();
  t.same(fs.readFileSync(file), fixture('upstream/gems/hubdemo-1.0.0.gem'), 'the store holds the good copy again');
});
