import t from 'tap';
import { get, setup } from './setup.js';

const PKGS = 'dists/stable/main/binary-amd64/Packages';

t.test(
  "index files: If-None-Match gets 304; If-Modified-Since (apt's) never does: no Last-Modified is claimed",
  async (t) => {
    const s = await setup(t);
    const a = await get(`${s.base}/${PKGS}`);
    t.equal(a.status, 200);
    t.equal(a.headers.get('last-modified'), null, "hub's fetch time is not offered as the file's");
    t.equal((await get(`${s.base}/${PKGS}`, { 'if-none-match': a.headers.get('etag')! })).status, 304);
    const later = new Date(Date.now() + 3600_000).toUTCString();
    const ims = await get(`${s.base}/${PKGS}`, { 'if-modified-since': later });
    t.equal(ims.status, 200, 'the whole file, whatever date the client holds');
    t.ok(ims.body.length > 0);
  },
);
