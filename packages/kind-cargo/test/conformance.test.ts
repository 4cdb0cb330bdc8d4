import t from 'tap';
import { kindConformance, pathOf, sendBody, type FixtureHandler } from '@hub/testkit';
import cargo from '../src/index.js';
import { CRATE, FIXTURES, fixture } from './setup.js';

const INDEX_FILE = '/index/fo/rm/form_urlencoded';

/** The fixture's form_urlencoded 1.1.0, served once more as 1.0.0 (same bytes, same cksum), so the crate has two versions. */
const twoVersions: FixtureHandler = (req, res) => {
  const p = pathOf(req.url);
  if (p === INDEX_FILE) {
    const line = fixture('index/fo/rm/form_urlencoded').toString('utf8').trim();
    sendBody(
      req,
      res,
      200,
      { 'content-type': 'text/plain; charset=utf-8' },
      `${line.replace('"vers":"1.1.0"', '"vers":"1.0.0"')}\n${line}\n`,
    );
    return true;
  }
  if (p === '/crates/form_urlencoded/form_urlencoded-1.0.0.crate') {
    sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, fixture(CRATE.form));
    return true;
  }
  return false;
};

/** A version is offered when its index line is there and not yanked (hub marks unlisted versions yanked). */
const offers = (body: Buffer, version: string) =>
  body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .some((l) => {
      const e = JSON.parse(l) as { vers: string; yanked: boolean };
      return e.vers === version && !e.yanked;
    });

t.test('the cargo kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: cargo,
    upstream: { root: FIXTURES, handler: twoVersions },
    upstreamPath: '/index',
    coordinates: [
      { name: 'form_urlencoded' },
      { name: 'form_urlencoded', version: '1.1.0' },
      { name: 'cfg-if', version: '1.0.0-rc.1+build' },
    ],
    pkg: { name: 'form_urlencoded', versions: ['1.0.0', '1.1.0'] },
    paths: {
      download: (v) => `api/v1/crates/form_urlencoded/${v}/download`,
      listings: [{ path: 'registry/fo/rm/form_urlencoded', lists: offers }],
      unknown: 'api/v1/crates/form_urlencoded/1.1.0/readme',
    },
  }),
);
