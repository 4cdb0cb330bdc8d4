import t from 'tap';
import { kindConformance, pathOf, sendBody, type FixtureHandler } from '@hub/testkit';
import { forgejo, github, gitlab } from '../src/index.js';
import { ASSET } from './setup.js';

const TAGS = ['v1.0.0', 'v1.1.0'] as const;
const NO_LISTING = 'forge kinds serve release assets only, no listing of releases';

/** Release assets of hubowner/hubtool, answered by the forge itself (no redirect to a storage host). */
const assets: FixtureHandler = (req, res) => {
  const m = /\/(v1\.[01]\.0)\/(?:downloads\/)?hubtool\.tar\.gz$/.exec(pathOf(req.url));
  if (!m) return false;
  sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, ASSET);
  return true;
};

const common = {
  upstream: { handler: assets },
  coordinates: [
    { name: 'hubowner/hubtool' },
    { name: 'hubowner/hubtool', version: 'v1.0.0' },
    { name: 'hubowner/hubtool', version: 'pkg@1.0.0' },
  ],
  pkg: { name: 'hubowner/hubtool', versions: TAGS },
  skip: {
    unlisted: NO_LISTING,
    'probe-503': 'forge kinds are never audited (packages/audit/README.md), so they have no probe',
  },
};

for (const kind of [github, forgejo])
  t.test(`the ${kind.id} kind passes kindConformance`, (t) =>
    kindConformance(t, {
      ...common,
      kind,
      paths: {
        download: (tag) => `hubowner/hubtool/releases/download/${tag}/hubtool.tar.gz`,
        listings: [],
        unknown: 'hubowner/hubtool/archive/v1.0.0.zip',
      },
    }),
  );

t.test('the gitlab kind passes kindConformance', (t) =>
  kindConformance(t, {
    ...common,
    kind: gitlab,
    coordinates: [...common.coordinates, { name: 'group/sub/project', version: 'v2' }],
    paths: {
      download: (tag) => `hubowner/hubtool/-/releases/${tag}/downloads/hubtool.tar.gz`,
      listings: [],
      unknown: 'hubowner/hubtool/-/archive/v1.0.0.zip',
    },
  }),
);
