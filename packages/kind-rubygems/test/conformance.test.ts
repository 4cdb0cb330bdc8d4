import t from 'tap';
import { kindConformance } from '@hub/testkit';
import rubygems from '../src/index.js';
import { FIXTURES } from './setup.js';

/** The lines of a compact index file after its `---` header. */
const entries = (body: Buffer) => body.toString('utf8').split('\n---\n').at(-1)!.split('\n').filter(Boolean);

/** `versions`: a gem's lines add versions, and `-<version>` takes one away again (yanks). */
function versionsFileOffers(body: Buffer, version: string): boolean {
  const offered = new Set<string>();
  for (const line of entries(body)) {
    const [gem, list] = line.split(' ');
    if (gem !== 'hubdemo') continue;
    for (const v of list!.split(',')) {
      if (v.startsWith('-')) offered.delete(v.slice(1));
      else offered.add(v);
    }
  }
  return offered.has(version);
}

t.test('the rubygems kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: rubygems,
    upstream: { root: `${FIXTURES}upstream` },
    coordinates: [
      { name: 'hubdemo' },
      { name: 'hubdemo', version: '1.1.0' },
      { name: 'hubmac', version: '1.0-x86_64-darwin-19' },
    ],
    pkg: { name: 'hubdemo', versions: ['1.0.0', '1.1.0'] },
    paths: {
      download: (v) => `gems/hubdemo-${v}.gem`,
      listings: [
        { path: 'info/hubdemo', lists: (body, v) => entries(body).some((l) => l.startsWith(`${v} `)) },
        { path: 'versions', lists: versionsFileOffers },
        {
          path: 'api/v1/gems/hubdemo.json',
          lists: (body, v) => (JSON.parse(body.toString('utf8')) as { version: string }).version === v,
        },
      ],
      unknown: 'api/v2/rubygems/hubdemo.json',
    },
  }),
);
