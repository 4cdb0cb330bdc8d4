import path from 'node:path';
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { npmFixtureHandler, rawRequest, startFixtureUpstream } from '@hub/testkit';
import { composeHub } from '../src/compose.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../../packages/kind-npm/test/fixtures/upstream/', import.meta.url));

t.test('a hub composed in code serves its two kinds and nothing else', async (t) => {
  const root = t.testdir({ tools: { tool: { '1.0.0': { 'a.txt': 'A' } } }, data: {} });
  const npmUp = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  const toolsUp = await startFixtureUpstream({ root: path.join(root, 'tools') });
  t.teardown(() => Promise.all([npmUp.close(), toolsUp.close()]));
  const printed: string[] = [];
  const hub = await composeHub({
    npmUpstream: npmUp.url,
    toolsUpstream: toolsUp.url,
    dataDir: path.join(root, 'data'),
    listen: '127.0.0.1:0',
    print: (l) => printed.push(l),
  });
  t.teardown(() => hub.close());
  const url = await hub.listen();

  t.match(
    printed.join('\n'),
    /created the bootstrap admin token .*: hub_/,
    'the first start prints the bootstrap token once',
  );
  t.same([...hub.kinds.keys()].sort(), ['npm', 'static'], 'only the chosen kinds are loaded');
  const tarball = await rawRequest(`${url}/proxy/npm/hubdemo/1.0.0/tarball`);
  t.equal(tarball.status, 200);
  t.equal(tarball.body[0], 0x1f, 'an npm tarball');
  t.equal((await rawRequest(`${url}/proxy/tools/tool/1.0.0/a.txt`)).body.toString(), 'A');
  t.equal(
    (await rawRequest(`${url}/proxy/go/github.com/pkg/errors/@v/list`)).status,
    404,
    'no go registry in this hub',
  );
});
