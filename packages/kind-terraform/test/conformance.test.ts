import t from 'tap';
import { kindConformance } from '@hub/testkit';
import terraform from '../src/index.js';
import { FIXTURES, MIRROR_HOST } from './setup.js';

const PROVIDER = 'v1/providers/hubns/hubdemo';
const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;

t.test('the terraform kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: terraform,
    registry: { mirror_hostnames: [MIRROR_HOST] },
    upstream: { root: FIXTURES },
    coordinates: [
      { name: 'hubns/hubdemo' },
      { name: 'hubns/hubdemo', version: '1.2.3' },
      { name: 'hubns/hubdemo', version: '2.0.0-beta.1' },
    ],
    pkg: { name: 'hubns/hubdemo', versions: ['1.2.3', '1.3.0'] },
    paths: {
      download: (v) => `${PROVIDER}/${v}/download/linux/amd64/archive.zip`,
      listings: [
        {
          path: `${PROVIDER}/versions`,
          lists: (body, v) => (json(body).versions as Array<{ version: string }>).some((e) => e.version === v),
        },
        {
          path: `mirror/${MIRROR_HOST}/hubns/hubdemo/index.json`,
          lists: (body, v) => v in (json(body).versions as Record<string, unknown>),
        },
      ],
      unknown: `${PROVIDER}/1.2.3/docs`,
    },
  }),
);
