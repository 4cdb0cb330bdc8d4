import t from 'tap';
import { kindConformance } from '@hub/testkit';
import pypi from '../src/index.js';
import { simpleIndex, wheel, type FixtureDist } from './simple-fixture.js';

/** hub-demo 1.0.0 and 1.1.0 as wheels, on a page that offers both forms, files relative to the page. */
const DISTS: FixtureDist[] = ['1.0.0', '1.1.0'].map((v) => ({ project: 'hub-demo', ...wheel('hub_demo', v) }));

const fileOf = (v: string) => `hub_demo-${v}-py3-none-any.whl`;

t.test('the pypi kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: pypi,
    upstream: { handler: simpleIndex(() => DISTS) },
    upstreamPath: '/simple',
    coordinates: [
      { name: 'hub-demo' },
      { name: 'hub-demo', version: '1.0.0' },
      { name: 'zope-interface', version: '5.4.0.post1' },
    ],
    pkg: { name: 'hub-demo', versions: ['1.0.0', '1.1.0'] },
    versionSpellings: [
      ['1.0.0', '1.0', 'v1.0.0.0', '1'],
      ['1.1rc1', '1.1.0-RC1', '1.1c1'],
    ],
    paths: {
      download: (v) => `files/hub-demo/${fileOf(v)}`,
      listings: [
        {
          path: 'simple/hub-demo/',
          headers: { accept: 'application/vnd.pypi.simple.v1+json' },
          lists: (body, v) =>
            (JSON.parse(body.toString('utf8')) as { files: Array<{ filename: string }> }).files.some(
              (f) => f.filename === fileOf(v),
            ),
        },
        {
          path: 'simple/hub-demo/',
          headers: { accept: 'text/html' },
          lists: (body, v) => body.toString('utf8').includes(`>${fileOf(v)}</a>`),
        },
      ],
      unknown: 'simple/hub-demo/extra',
    },
  }),
);
