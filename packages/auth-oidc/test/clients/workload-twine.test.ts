import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { makeZip, startTestHub, missingClient } from '@hub/testkit';
import pypi from '@hub/kind-pypi';
import publishing from '@hub/publishing';
import workload from '../../src/workload/index.js';
import { startJwksIssuer } from '../jwks-issuer.js';

/** Issue 27: trusted publishing with twine: the exchanged token is the password of `__token__`, nothing stored. */

const run = promisify(execFile);
const noTwine = await run('twine', ['--version']).then(
  () => false,
  () => missingClient('twine', 'apt-get install twine'),
);

/** A minimal pure-Python wheel, as twine reads it (METADATA, WHEEL, RECORD). */
function wheel(dir: string, name: string, version: string): string {
  const info = `${name}-${version}.dist-info`;
  const files: Record<string, Buffer> = {
    [`${name}/__init__.py`]: Buffer.from(`VERSION = ${JSON.stringify(version)}\n`),
    [`${info}/METADATA`]: Buffer.from(
      `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n\n${name} for tests\n`,
    ),
    [`${info}/WHEEL`]: Buffer.from(
      'Wheel-Version: 1.0\nGenerator: hub-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    ),
  };
  const digest = (b: Buffer) => crypto.createHash('sha256').update(b).digest('base64url');
  files[`${info}/RECORD`] = Buffer.from(
    [...Object.entries(files).map(([p, b]) => `${p},sha256=${digest(b)},${b.length}`), `${info}/RECORD,,`, ''].join(
      '\n',
    ),
  );
  const file = path.join(dir, `${name}-${version}-py3-none-any.whl`);
  fs.writeFileSync(file, makeZip(files));
  return file;
}

t.test('twine uploads with the exchanged token', { skip: noTwine }, async (t) => {
  const issuer = await startJwksIssuer();
  t.teardown(() => issuer.close());
  const dir = t.testdir();
  const hub = await startTestHub({
    dir,
    plugins: [pypi, publishing, workload],
    registries: [{ name: 'py-internal', type: 'pypi', mode: 'local' }],
    config: {
      auth: {
        workload: [
          {
            name: 'lib',
            issuer: issuer.url,
            audience: 'hub',
            claims: { project_path: 'acme/lib', ref_protected: 'true' },
            roles: ['publisher'],
            registries: ['py-*'],
          },
        ],
      },
    },
  });
  t.teardown(() => hub.close());
  const exchanged = await fetch(`${hub.url}/api/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await issuer.sign({ project_path: 'acme/lib', ref_protected: true })}` },
  });
  t.equal(exchanged.status, 201);
  const { token } = (await exchanged.json()) as { token: string };
  const whl = wheel(dir, 'acme_lib', '1.0.0');
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    TWINE_USERNAME: '__token__',
    TWINE_PASSWORD: token,
    TWINE_NON_INTERACTIVE: '1',
  };
  const up = await run(
    'twine',
    ['upload', '--disable-progress-bar', '--repository-url', `${hub.url}/proxy/py-internal/legacy/`, whl],
    { env },
  ).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  t.equal(up.code, 0, `${up.stdout}\n${up.stderr}`);
  const page = await fetch(`${hub.url}/proxy/py-internal/simple/acme-lib/`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.equal(page.status, 200);
  t.match(await page.text(), /acme_lib-1\.0\.0-py3-none-any\.whl/);
});
