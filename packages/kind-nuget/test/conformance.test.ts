import t from 'tap';
import { kindConformance } from '@hub/testkit';
import nuget from '../src/index.js';
import { nugetFixtureHandler } from './nuget-fixture.js';
import { FIXTURES } from './setup.js';

type Json = Record<string, unknown>;
const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Json;

/** Registration leaves offering `version`; NuGet hides an unlisted version by `listed: false`, not by removing it. */
function registrationLists(body: Buffer, version: string): boolean {
  const pages = (json(body).items ?? []) as Array<{
    items?: Array<{ catalogEntry: { version: string; listed?: boolean } }>;
  }>;
  return pages.some((p) =>
    (p.items ?? []).some((l) => l.catalogEntry.version === version && l.catalogEntry.listed !== false),
  );
}

t.test('the nuget kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: nuget,
    upstream: { handler: nugetFixtureHandler(FIXTURES) },
    upstreamPath: '/v3/index.json',
    coordinates: [
      { name: 'hubdemo' },
      { name: 'hubdemo', version: '1.1.0' },
      { name: 'hubdemo', version: '1.0.0-beta.1' },
    ],
    pkg: { name: 'hubdemo', versions: ['1.0.0', '1.1.0'] },
    versionSpellings: [['1.0.0', '1.0', '1.0.0.0', '01.0.0+build']],
    paths: {
      download: (v) => `nuget/v3/flatcontainer/hubdemo/${v}/hubdemo.${v}.nupkg`,
      listings: [
        {
          path: 'nuget/v3/flatcontainer/hubdemo/index.json',
          lists: (body, v) => (json(body).versions as string[]).includes(v),
        },
        { path: 'nuget/v3/registration/hubdemo/index.json', lists: registrationLists },
      ],
      unknown: 'nuget/v3/no-such-resource',
    },
  }),
);
