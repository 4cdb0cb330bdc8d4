import t from 'tap';
import { kindConformance, npmFixtureHandler } from '@hub/testkit';
import npm from '../src/index.js';
import { FIXTURES } from './setup.js';

const packumentLists = (body: Buffer, version: string) =>
  (JSON.parse(body.toString('utf8')) as { versions: Record<string, unknown> }).versions[version] !== undefined;

t.test('the npm kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: npm,
    upstream: { handler: npmFixtureHandler(FIXTURES) },
    coordinates: [
      { name: 'hubdemo' },
      { name: 'hubdemo', version: '1.1.0' },
      { name: '@hubtest/scoped', version: '1.0.0' },
      { name: '@hubtest/scoped' },
    ],
    pkg: { name: 'hubdemo', versions: ['1.0.0', '1.1.0'] },
    paths: {
      download: (v) => `hubdemo/${v}/tarball`,
      listings: [
        { path: 'hubdemo', headers: { accept: 'application/json' }, lists: packumentLists },
        { path: 'hubdemo', headers: { accept: 'application/vnd.npm.install-v1+json' }, lists: packumentLists },
      ],
      unknown: 'hubdemo/1.0.0/no-such-route',
    },
  }),
);
