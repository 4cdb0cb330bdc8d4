import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { chromium } from 'playwright-core';
import { startSso } from '../sso-setup.js';

/** Issue 27: `hub login` (the real CLI, as a process): the device flow through hub, a hub token stored, never the ID token. */

const CHROMIUM = '/usr/bin/chromium';
const noBrowser = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (apt-get install chromium)`;
const HUB_BIN = fileURLToPath(new URL('../../../../cli/dist/src/bin.js', import.meta.url));

function runHub(
  args: string[],
  env: NodeJS.ProcessEnv,
  onErr: (text: string) => void = () => {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HUB_BIN, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      onErr(err);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

t.test(
  'hub login: the person confirms the code in a browser; the CLI stores a hub token and later commands use it',
  { skip: noBrowser },
  async (t) => {
    const s = await startSso(t, { max_session_secs: 3600 }, { deviceFlow: true });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-login-'));
    t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
    const env = { XDG_CONFIG_HOME: path.join(home, 'config'), HOME: home };
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    t.teardown(() => browser.close());

    let confirmed: Promise<void> | undefined;
    const login = runHub(['login', '--url', s.hub.url], env, (err) => {
      const m = /Open (\S+)/.exec(err);
      if (!m || confirmed) return;
      confirmed = (async () => {
        const page = await browser.newPage();
        await page.goto(m[1]!);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page
          .waitForURL((u) => !u.pathname.startsWith('/interaction/') && u.pathname !== '/device', { timeout: 10_000 })
          .catch(() => {});
        await page
          .getByText(/Sign-in Success|successfully/i)
          .first()
          .waitFor({ timeout: 10_000 });
      })();
    });
    const result = await login;
    await confirmed;
    t.equal(result.code, 0, result.err);
    t.match(result.out, /Signed in to http:\/\/127\.0\.0\.1:\d+ as oidc:alice until /);
    t.match(result.err, /and enter the code \S+ if asked/);

    const file = path.join(env.XDG_CONFIG_HOME, 'hub', 'credentials.json');
    t.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable by the user only');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { token: string; user_id: string }>;
    const entry = stored[s.hub.url]!;
    t.match(entry, { token: /^hub_/, user_id: 'oidc:alice' });
    t.notOk(/eyJ/.test(fs.readFileSync(file, 'utf8')), 'no JWT (ID token) is stored');

    // A later admin command takes the stored token: alice is an admin through her groups.
    const users = await runHub(['users', 'list', '--url', s.hub.url, '--json'], env);
    t.equal(users.code, 0, users.err);
    t.match(users.out, /oidc:alice/);
    t.match((await s.hub.hub.services.accessLog.query({ actions: ['cli_sign_in'] }, { limit: 5 }))[0], {
      outcome: 'allowed',
      user_id: 'oidc:alice',
      detail: /^oidc: /,
    });
  },
);

t.test('hub login against a provider without the device flow says so', async (t) => {
  const s = await startSso(t);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-login-'));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  const res = await runHub(['login', '--url', s.hub.url], { XDG_CONFIG_HOME: home, HOME: home });
  t.equal(res.code, 1);
  t.match(res.err, /the identity provider offers no device sign-in/);
});
