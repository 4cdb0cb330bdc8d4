import t from 'tap';
import { kindConformance } from '@hub/testkit';
import maven from '../src/index.js';
import { UPSTREAM } from './setup.js';

const ARTIFACT = 'maven2/org/example/hubparent';

t.test('the maven kind passes kindConformance', (t) =>
  kindConformance(t, {
    kind: maven,
    upstream: { root: UPSTREAM },
    coordinates: [
      { name: 'org.example:hubparent' },
      { name: 'org.example:hubparent', version: '1.0' },
      { name: 'org.example:snap', version: '1.0-SNAPSHOT' },
    ],
    pkg: { name: 'org.example:hubparent', versions: ['1.0', '2.0'] },
    paths: {
      download: (v) => `${ARTIFACT}/${v}/hubparent-${v}.pom`,
      listings: [
        {
          path: `${ARTIFACT}/maven-metadata.xml`,
          lists: (body, v) => body.toString('utf8').includes(`<version>${v}</version>`),
        },
      ],
      unknown: 'not-a-repository-root/org/example/hubparent/1.0/hubparent-1.0.pom',
    },
  }),
);
