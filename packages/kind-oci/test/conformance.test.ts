import t from 'tap';
import { kindConformance } from '@hub/testkit';
import oci from '../src/index.js';
import { fixtureRegistry } from './fixture-registry.js';
import { buildImage } from './image.js';

const registry = fixtureRegistry({ 'hub/demo': { '1.0': buildImage('1.0'), '1.1': buildImage('1.1') } });

t.test('the oci kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: oci,
    upstream: { handler: registry.handler },
    coordinates: [
      { name: 'hub/demo' },
      { name: 'hub/demo', version: '1.1' },
      { name: 'library/alpine', version: `sha256:${'ab'.repeat(32)}` },
      { name: 'a/b/c', version: 'v1.2.3-rc_1' },
    ],
    pkg: { name: 'hub/demo', versions: ['1.0', '1.1'] },
    paths: {
      download: (v) => `hub/demo/manifests/${v}`,
      listings: [
        {
          path: 'hub/demo/tags/list',
          lists: (body, v) => (JSON.parse(body.toString('utf8')) as { tags: string[] }).tags.includes(v),
        },
      ],
      unknown: 'hub/demo/referrers-of/x',
    },
  }),
);
