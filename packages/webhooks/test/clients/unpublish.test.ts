/** Issue 29: `package_unpublished` joins `package_published`, emitted from the same path, with the real npm client. */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import t from 'tap';
import npm from '@hub/kind-npm';
import publishing from '@hub/publishing';
import { missingClient, npmEnv, startTestHub } from '@hub/testkit';
import webhooks from '../../src/index.js';

const hasNpm = await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
);

t.test(
  'npm publish and npm unpublish send package_published and package_unpublished',
  { skip: hasNpm ? false : missingClient('npm') },
  async (t) => {
    const got: Array<{ type: string; registry: string; data: Record<string, unknown> }> = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => server.close(() => r())));
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [npm, publishing, webhooks],
      registries: [{ name: 'internal', type: 'npm', mode: 'local' }],
      config: {
        notifications: {
          webhooks: [
            {
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
              events: ['package_published', 'package_unpublished'],
            },
          ],
        },
      },
    });
    t.teardown(() => hub.close());
    const ci = npmEnv(t, `${hub.url}/proxy/internal/`, await hub.token('ci', { roles: ['publisher'] }));
    for (const version of ['1.0.0', '1.1.0']) {
      const p = await ci.npm(['publish'], ci.makePackage({ name: '@acme/gone', version }));
      t.equal(p.code, 0, `npm publish ${version}: ${p.stderr}`);
    }
    const un = await ci.npm(['unpublish', '@acme/gone@1.0.0']);
    t.equal(un.code, 0, `npm unpublish: ${un.stderr}`);
    for (let i = 0; i < 400 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    t.same(
      got.map((e) => [e.type, e.data.package, e.data.version]),
      [
        ['package_published', '@acme/gone', '1.0.0'],
        ['package_published', '@acme/gone', '1.1.0'],
        ['package_unpublished', '@acme/gone', '1.0.0'],
      ],
    );
    t.match(got[2], { registry: 'internal', data: { user: 'ci', registry: 'internal' } });
  },
);
