import fs from 'node:fs';
import t, { type Test } from 'tap';
import { chromium, type Browser } from 'playwright-core';
import { startSso } from '../sso-setup.js';

/** Issue 27: single sign-on in real Chromium, against a real OpenID Provider (interactions completed by the test). */

const CHROMIUM = '/usr/bin/chromium';
const noBrowser = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (apt-get install chromium)`;

async function launch(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

t.test(
  'Chromium: "Sign in with Acme SSO", roles from groups, a refused outsider, an expired session',
  { skip: noBrowser },
  async (t) => {
    const s = await startSso(t, { max_session_secs: 4 });
    const browser = await launch(t);

    // alice: the button beside token sign-in takes her through the provider and back, signed in as an admin.
    const alice = await browser.newPage();
    await alice.goto(`${s.hub.url}/console/`);
    await alice.getByRole('heading', { name: 'Sign in to hub' }).waitFor();
    t.ok(await alice.getByRole('button', { name: 'Sign in', exact: true }).isVisible(), 'token sign-in stays');
    await alice.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await alice.getByText('Signed in as oidc:alice').waitFor();
    const signedInAt = Date.now();
    t.equal(new URL(alice.url()).pathname, '/console/');
    t.ok(s.op.tokenCalls >= 1, 'the code was redeemed at the provider');
    const me = await alice.evaluate(async () => (await fetch('/console/session')).json());
    t.match(me, { user_id: 'oidc:alice', roles: ['admin'], can: { write: true } });

    // eve: signed in at the provider, in no mapped group: a page says why, and the console stays signed out.
    s.op.next.account = 'eve';
    const eve = await (await browser.newContext()).newPage();
    await eve.goto(`${s.hub.url}/console/`);
    await eve.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await eve.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
    t.match(
      await eve.locator('#reason').textContent(),
      /none of your groups gives a role on this hub; ask an administrator for access/,
    );
    await eve.getByRole('link', { name: 'Back to the console' }).click();
    await eve.getByRole('heading', { name: 'Sign in to hub' }).waitFor();

    // max_session_secs (4 s here) after sign-in the session is over: the console asks to sign in again.
    await new Promise((r) => setTimeout(r, Math.max(0, signedInAt + 5_500 - Date.now())));
    await alice.reload();
    await alice.getByRole('heading', { name: 'Sign in to hub' }).waitFor();
    t.equal(await alice.evaluate(async () => (await fetch('/console/session')).status), 401, 'the session has expired');
  },
);
