import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { pathOf, startFixtureUpstream, startTestHub } from '@hub/testkit';
import generic from '../src/kinds/generic.js';
import { foldedPath } from '../src/paths.js';
import { get } from './setup.js';

t.test('foldedPath drops trailing dots and spaces of each segment', async (t) => {
  t.equal(foldedPath('tools/b.exe'), 'tools/b.exe');
  t.equal(foldedPath('tools/b.exe.'), 'tools/b.exe');
  t.equal(foldedPath('tools/b.exe%20'), 'tools/b.exe');
  t.equal(foldedPath('tools/b.exe.%20.%20'), 'tools/b.exe');
  t.equal(foldedPath('tools.%20/b.exe'), 'tools/b.exe', 'every segment, as Windows does');
  t.equal(foldedPath('tools/b%20c.exe'), 'tools/b%20c.exe', 'an inner space stays');
  t.equal(foldedPath('tools/...'), 'tools/...', 'a segment of nothing else is kept');
});

/**
 * A Windows-style upstream (IIS drops trailing dots and spaces, and ignores case): `tools/b.exe.` is the same
 * file as `tools/b.exe`. A block on `tools/b.exe` refuses every spelling such a server folds (issue 26,
 * decision 0046); case is not folded (hub serves paths as POSIX servers do; the README says how to block).
 */
t.test(
  'a block on a file refuses its spellings with trailing dots and spaces, before any upstream request',
  async (t) => {
    const upstream = await startFixtureUpstream({
      handler: (req: IncomingMessage, res: ServerResponse) => {
        const p = decodeURIComponent(pathOf(req.url))
          .split('/')
          .map((s) => s.replace(/[. ]+$/, ''))
          .join('/')
          .toLowerCase();
        if (p !== '/tools/b.exe') return false;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end('MZ the blocked program');
        return true;
      },
    });
    t.teardown(() => upstream.close());
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [generic],
      registries: [{ name: 'files', type: 'generic', mode: 'proxy', upstream: upstream.url }],
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(() => hub.close());
    await hub.hub.services.blocks.add({
      registry: 'files',
      package_name: 'repo',
      version: 'tools/b.exe',
      reason: 'malware',
      by: 'admin',
    });

    for (const spelling of [
      'tools/b.exe',
      'tools/b.exe.',
      'tools/b.exe%20',
      'tools/b.exe.%20.',
      'tools./b.exe',
      'tools%20/b.exe..',
    ]) {
      const res = await get(`${hub.url}/proxy/files/${spelling}`);
      t.equal(res.status, 403, `${spelling} is refused`);
      t.equal(res.json().error.code, 'package_blocked');
      t.match(res.json().error.message, /malware/, 'with the reason');
    }
    t.equal(upstream.requests.length, 0, 'no spelling reached the upstream');

    // Case is not folded (decision 0046): against a case-insensitive upstream, block each spelling served.
    const upper = await get(`${hub.url}/proxy/files/tools/B.EXE`);
    t.equal(upper.status, 200, 'another letter case is another path to hub');
    await hub.hub.services.blocks.add({
      registry: 'files',
      package_name: 'repo',
      version: 'tools/B.EXE',
      reason: 'malware',
      by: 'admin',
    });
    t.equal(
      (await get(`${hub.url}/proxy/files/tools/B.EXE.`)).status,
      403,
      'and a block on it folds its trailing dots too',
    );
  },
);
