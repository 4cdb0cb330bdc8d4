import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import admin from '@hub/admin';
import maven from '@hub/kind-maven';
import npm from '@hub/kind-npm';
import { startTestHub } from '@hub/testkit';
import flags from '../src/index.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const SECRET = 'readme-example-secret';

/** The `sh` blocks of one README section, as a source would copy them. */
function shellBlocks(section: string): string[] {
  const text = fs.readFileSync(README, 'utf8');
  const start = text.indexOf(`## ${section}\n`);
  const end = text.indexOf('\n## ', start + 1);
  return [...text.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

t.test(
  "the README's signing examples, run as written with bash, curl and openssl, are accepted by a real hub",
  async (t) => {
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [npm, maven, admin, flags],
      registries: [
        { name: 'npm', type: 'npm', mode: 'proxy', upstream: 'http://127.0.0.1:9' },
        { name: 'maven-central', type: 'maven', mode: 'proxy', upstream: 'http://127.0.0.1:9' },
      ],
      config: { flag_sources: [{ name: 'osv-bridge', secret: SECRET }] as never },
    });
    t.teardown(() => hub.close());
    const blocks = shellBlocks('Pushing and lifting flags');
    t.equal(blocks.length, 2, 'a push and lift example, and a range example');
    const run = async (script: string) => {
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-euo', 'pipefail', '-c', script.replaceAll('http://localhost:8080', hub.url)],
        { env: { PATH: process.env.PATH, SECRET } },
      );
      return stdout;
    };
    const first = await run(blocks[0]!);
    t.match(first, /"accepted":1,"rejected":0/, 'the push is accepted');
    t.match(first, /"state":"tombstone"/, 'the lift leaves a tombstone');
    const second = await run(blocks[1]!);
    t.match(second, /"accepted":2,"rejected":0/, 'both range flags (npm semver, maven intervals) are accepted');
    const listed = await fetch(`${hub.url}/api/v1/admin/flags`, {
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    const body = (await listed.json()) as { flags: Array<{ external_id: string; version_range: string | null }> };
    t.same(body.flags.map((f) => [f.external_id, f.version_range]).sort(), [
      ['GHSA-yyyy', '>=1.0.0 <1.2.6'],
      ['GHSA-zzzz', '[2.0-beta9,2.15.0),[2.16.0]'],
    ]);
  },
);
