import path from 'node:path';
import t from 'tap';
import { kindConformance } from '@hub/testkit';
import staticKind from '../src/index.js';

const listed = (body: Buffer, version: string) =>
  (JSON.parse(body.toString('utf8')) as { versions: string[] }).versions.includes(version);

t.test('the static kind passes kindConformance', async (t) => {
  const root = t.testdir({
    tool: {
      'versions.json': JSON.stringify({ versions: ['1.0.0', '1.1.0'] }),
      '1.0.0': { 'tool.txt': 'tool one' },
      '1.1.0': { 'tool.txt': 'tool one point one' },
    },
  });
  await kindConformance(t, {
    kind: staticKind,
    upstream: { root: path.resolve(root) },
    coordinates: [{ name: 'tool' }, { name: 'tool', version: '1.0.0' }],
    pkg: { name: 'tool', versions: ['1.0.0', '1.1.0'] },
    paths: {
      download: (v) => `tool/${v}/tool.txt`,
      listings: [{ path: 'tool/versions.json', lists: listed }],
      unknown: 'tool/versions.json/extra/segments',
    },
  });
});
