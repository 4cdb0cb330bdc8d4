import t from 'tap';
import { goFixtureHandler, kindConformance } from '@hub/testkit';
import go from '../src/index.js';
import { FIXTURES } from './setup.js';

const MODULE = 'example.com/!hub/demo';

t.test('the go kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: go,
    upstream: { handler: goFixtureHandler(FIXTURES) },
    coordinates: [
      { name: 'example.com/Hub/demo' },
      { name: 'example.com/Hub/demo', version: 'v1.1.0' },
      { name: 'github.com/pkg/errors', version: 'v0.9.2-0.20201214064552-5dd12d0cfe7f' },
    ],
    pkg: { name: 'example.com/Hub/demo', versions: ['v1.0.0', 'v1.1.0'] },
    paths: {
      download: (v) => `${MODULE}/@v/${v}.zip`,
      listings: [
        { path: `${MODULE}/@v/list`, lists: (body, v) => body.toString('utf8').split('\n').includes(v) },
        {
          path: `${MODULE}/@latest`,
          lists: (body, v) => (JSON.parse(body.toString('utf8')) as { Version: string }).Version === v,
        },
      ],
      unknown: `${MODULE}/README`,
    },
  }),
);
