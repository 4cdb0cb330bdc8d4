import t from 'tap';
import { fixtureFile, get, setup } from './setup.js';

const DL = 'v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64';
const SUMS = 'files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS';

t.test('a SHA256SUMS past 256 KiB is not read on: 502, and the zip is never fetched', async (t) => {
  const s = await setup(t);
  const doc = (await get(`${s.base}/${DL}`, s.auth)).json();
  const padded = `${fixtureFile(SUMS).toString()}${`${'0'.repeat(64)}  terraform-provider-hubdemo_padding.zip\n`.repeat(3000)}`;
  t.ok(padded.length > 256 * 1024);
  s.upstream.fault(`/${SUMS}`, { type: 'status', status: 200, body: padded });
  const res = await get(doc.download_url);
  t.equal(res.status, 502);
  t.match(res.json().error.message, /SHA256SUMS exceeds 262144 bytes/);
  t.equal(
    s.upstream.count('/files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip'),
    0,
    'the zip was never fetched',
  );
});
