/**
 * `hub check --pypi NAME` (the pypi kind's clientCheck, offered by the default distribution): the PEP 691
 * page names a file of the version and the file downloads; the tool check runs pip download through the
 * hub when pip is installed, and is a skip otherwise.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import pypi from '@hub/kind-pypi';
import { makeZip, pathOf, sendBody, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { json, runHub } from './run-hub.js';

const WHEEL = makeZip({
  'hubdemo/__init__.py': '',
  'hubdemo-1.0.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: hubdemo\nVersion: 1.0.0\n',
  'hubdemo-1.0.0.dist-info/WHEEL':
    'Wheel-Version: 1.0\nGenerator: hub-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
  'hubdemo-1.0.0.dist-info/RECORD': '',
});
const FILE = 'hubdemo-1.0.0-py3-none-any.whl';

const up = await startFixtureUpstream({
  handler: (req, res) => {
    const p = pathOf(req.url);
    if (p === '/simple/hubdemo/') {
      const files = [
        {
          filename: FILE,
          url: `../../files/${FILE}`,
          hashes: { sha256: crypto.createHash('sha256').update(WHEEL).digest('hex') },
        },
      ];
      sendBody(
        req,
        res,
        200,
        { 'content-type': 'application/vnd.pypi.simple.v1+json' },
        JSON.stringify({ meta: { 'api-version': '1.0' }, name: 'hubdemo', files }),
      );
      return true;
    }
    if (p !== `/files/${FILE}`) return false;
    sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, WHEEL);
    return true;
  },
});
t.teardown(() => up.close());
const hub = await startTestHub({
  dir: path.join(t.testdir(), 'hub'),
  plugins: [pypi],
  registries: [{ name: 'py', type: 'pypi', mode: 'proxy', upstream: `${up.url}/simple` }],
});
t.teardown(() => hub.close());
const reader = await hub.token('ci', { roles: ['reader'] });
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runHub(['check', ...args], { HUB_URL: hub.url, HUB_TOKEN: reader, ...env });

t.test('hub check --pypi: the page and the file pass; the tool check passes or says pip is missing', async (t) => {
  const r = await cli(['--pypi', 'py', '--pypi-project', 'HubDemo@1.0.0', '--json']);
  const out = json(r);
  t.match(out.checks[0], {
    registry: 'py',
    kind: 'pypi',
    check: 'http',
    result: 'pass',
    detail: /GET \/proxy\/py\/simple\/hubdemo\/: 200, 1 file\(s\); hubdemo-1\.0\.0-py3-none-any\.whl: 200/,
  });
  t.match(out.checks[1], { check: 'tool', result: /^(pass|skip)$/ });
  if (out.checks[1].result === 'pass') t.match(out.checks[1].detail, /pip download hubdemo==1\.0\.0: ok/);
  else t.match(out.checks[1].detail, /pip is not installed/);

  t.notOk(r.stdout.includes(reader), 'the token is never printed');

  const missing = await cli(['--pypi', 'py', '--pypi-project', 'hubdemo@9.9', '--json', '--url', hub.url], {
    PATH: '',
  });
  t.equal(missing.code, 1);
  t.match(json(missing).checks[0], { result: 'fail', detail: /no file of hubdemo 9\.9 among 1/ });
});

t.test('help names the option and the checks', async (t) => {
  const help = await cli(['--help']);
  t.match(help.stdout, /--pypi NAME, --pypi-project name@version/);
  t.match(help.stdout, /http: simple\/<project>\/ \(PEP 691 JSON\) names a <version> file that is 200/);
});
