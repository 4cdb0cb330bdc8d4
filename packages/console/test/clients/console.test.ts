import fs from 'node:fs';
import t from 'tap';
import type { Page } from 'playwright-core';
import { checkPage, launch, noBrowser, npmProject } from '../browser.js';
import { setup, type ConsoleSetup } from '../setup.js';

/**
 * The console in a real browser, against a real hub with fixture upstreams (issue 14): a person signs in,
 * reads the health card, blocks and unblocks a version (a real npm install fails, then works), rechecks a
 * missing row, creates and revokes a token, follows a flag to its exposure and CSV, and signs out.
 */
const XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

async function signInPage(page: Page, s: ConsoleSetup, token: string) {
  await page.goto(`${s.url}/console/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

const row = (page: Page, text: string | RegExp) => page.getByRole('row').filter({ hasText: text });

t.test('the console, clicked through as a person would', { skip: noBrowser }, async (t) => {
  const s = await setup(t);
  const alice = await s.token('alice', { roles: ['reader'] });
  for (const [n, v] of [
    ['hubdep', '1.0.0'],
    ['hubdemo', '1.0.0'],
    ['hubdemo', '1.1.0'],
    ['@hubtest/scoped', '1.0.0'],
  ] as const)
    t.equal(await s.fetchTarball(n, v), 200, `hub holds ${n}@${v}`);
  await s.hub.artifacts.idle(); // the last row is written just after its body was sent
  // One missing row for the Upstream table: the upstream stops listing @hubtest/scoped 1.0.0, and a sweep sees it.
  s.unpublish('@hubtest/scoped', '1.0.0');
  const sweep = await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
  t.match(sweep.json.sweeps, [{ registry: 'npm', missing: 1 }]);

  const browser = await launch(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) pageErrors.push(m.text());
  });

  await t.test('sign in: the session lives in an HttpOnly cookie, not in storage', async (t) => {
    await page.goto(`${s.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in to hub' }).waitFor();
    await checkPage(t, page, 'sign-in');
    await page.getByLabel('Token').fill('hub_wrong_token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.match(await page.getByRole('alert').textContent(), /unauthenticated/, 'a wrong token is refused, as text');
    await signInPage(page, s, s.adminToken);
    t.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session cookie');
    t.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0, 'nothing in web storage');
    const cookies = await context.cookies();
    t.match(cookies, [{ name: 'hub_session', httpOnly: true, sameSite: 'Strict', path: '/' }]);
  });

  await t.test('health card: the counts match the API', async (t) => {
    const api = (await s.api('GET', '/api/v1/admin/health')).json;
    const npmRow = page.locator('tr[data-registry="npm"]');
    await npmRow.waitFor();
    t.equal(await npmRow.locator('[data-count="missing"]').textContent(), String(api.registries[0].audit.missing));
    t.equal(
      await npmRow.locator('[data-count="disappeared"]').textContent(),
      String(api.registries[0].audit.disappeared),
    );
    t.equal(
      await npmRow.locator('[data-count="content-changed"]').textContent(),
      String(api.registries[0].audit.content_changed),
    );
    t.equal(api.registries[0].audit.missing, 1, 'the swept row');
    t.match(await npmRow.textContent(), `${api.registries[0].cached.artifacts} files`);
    t.match(await npmRow.textContent(), /reachable/, 'the upstream state');
    t.match(
      await page.locator('[data-count="held-bytes"]').textContent(),
      /no max_bytes limit/,
      'cache size against max_bytes',
    );
    t.match(
      await page.locator('[data-count="hard-blocks"]').textContent(),
      `${api.flags.hard_blocks_held.flags} flags`,
      'the hard blocks held in memory',
    );
    await checkPage(t, page, 'health');

    // By keyboard alone: the skip link first, then the navigation, Enter follows a link.
    await page.goto(`${s.url}/console/`);
    await npmRow.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await page.keyboard.press('Tab');
    t.equal(await focused(), 'Skip to content');
    await page.keyboard.press('Tab');
    t.equal(await focused(), 'Health');
    await page.keyboard.press('Tab');
    t.equal(await focused(), 'Upstream');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Upstream', exact: true }).waitFor();
    t.match(page.url(), /\/console\/upstream$/, 'Enter on a navigation link opens the page');
  });

  await t.test(
    'block a version from its package page: npm install fails with the reason; unblock: it works',
    async (t) => {
      await page.goto(`${s.url}/console/packages?registry=npm`);
      // The upstream audit's state is a badge only when it is news (missing, disappeared), never for "ok".
      await row(page, '@hubtest/scoped').locator('.badge', { hasText: 'missing' }).waitFor();
      t.equal(
        await row(page, 'hubdemo').locator('.badge').count(),
        0,
        'a package the audit found upstream has no badge',
      );
      await page.getByRole('link', { name: 'hubdemo', exact: true }).click();
      await page.getByRole('heading', { name: /hubdemo/ }).waitFor();
      await page.getByRole('button', { name: 'Block 1.0.0', exact: true }).click();
      const dialog = page.getByRole('alertdialog');
      t.match(
        await dialog.textContent(),
        /hidden from listings.*refused with 403/s,
        'the confirmation names both effects',
      );
      await dialog.getByLabel('Reason').fill('pulled by the console test');
      await dialog.getByRole('button', { name: 'Block' }).click();
      await row(page, '1.0.0').getByText('blocked by admin').waitFor();
      await checkPage(t, page, 'package');

      const npm = npmProject(t, `${s.url}/proxy/npm/`, alice);
      const failed = await npm.install('hubdemo@1.0.0');
      t.ok(failed, 'npm install of the blocked version fails');
      t.match(failed ?? '', /403/, 'with a 403');
      t.match(failed ?? '', /pulled by the console test/, 'and the reason typed in the console');

      await page.getByRole('button', { name: 'Unblock 1.0.0', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Unblocked 1.0.0.' }).waitFor();
      t.equal(await row(page, '1.0.0').getByText('blocked by').count(), 0, 'the badge is gone');
      t.equal(await npm.install('hubdemo@1.0.0'), null, 'npm install works again');
      t.equal(npm.installed('hubdemo'), '1.0.0');

      const listed = async () =>
        Object.keys(
          (
            (await (
              await fetch(`${s.url}/proxy/npm/hubdemo`, {
                headers: { authorization: `Bearer ${alice}`, accept: 'application/json' },
              })
            ).json()) as any
          ).versions,
        );
      await page.getByRole('button', { name: 'Unlist 1.1.0', exact: true }).click();
      await row(page, '1.1.0').getByText('unlisted').waitFor();
      t.same(await listed(), ['1.0.0'], 'unlisted: gone from the packument');
      await page.getByRole('button', { name: 'Relist 1.1.0', exact: true }).click();
      await page.getByRole('button', { name: 'Unlist 1.1.0', exact: true }).waitFor();
      t.same((await listed()).sort(), ['1.0.0', '1.1.0'], 'relisted');
      await page.getByRole('button', { name: 'Purge 1.1.0', exact: true }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Purge' }).click();
      await page.getByRole('status').filter({ hasText: 'Purged 1.1.0.' }).waitFor();
      // The version stays on the page (it was pulled), no longer held.
      await row(page, '1.1.0').getByText('held', { exact: true }).waitFor({ state: 'detached' });
      t.equal(await row(page, '1.1.0').getByText('held', { exact: true }).count(), 0, 'purged: hub no longer holds it');
      t.equal(
        await row(page, '1.0.0').getByText('held', { exact: true }).count(),
        1,
        'the other version is still held',
      );
      t.equal(await s.fetchTarball('hubdemo', '1.1.0'), 200, 'and fetches it again on the next download');
    },
  );

  await t.test('Recheck clears a missing row inline', async (t) => {
    s.republish('@hubtest/scoped');
    await page.goto(`${s.url}/console/upstream?registry=npm&state=missing`);
    const r = row(page, '@hubtest/scoped');
    await r.waitFor();
    t.match(await r.textContent(), /missing/);
    await checkPage(t, page, 'upstream');
    await r.getByRole('button', { name: /Recheck/ }).click();
    await r.getByText('Cleared: the upstream lists it again').waitFor();
    await page.reload();
    await page.getByText('No rows.').waitFor();
    t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=npm')).json.total, 0, 'the API agrees');
  });

  await t.test('list state is in the URL: reload and Back restore it, a page past the end clamps', async (t) => {
    await page.goto(`${s.url}/console/upstream?page=99`);
    await page.getByText('No rows.').waitFor();
    t.equal(new URL(page.url()).searchParams.get('page'), null, 'page 99 of 1 became page 1');
    await page.goto(`${s.url}/console/packages?registry=npm`);
    await page.getByLabel('Name contains').fill('hubde');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=hubde/);
    // The URL changes at once; the list follows when the filtered answer arrives (waitFor fails if it never does).
    await page.getByRole('link', { name: '@hubtest/scoped' }).waitFor({ state: 'detached' });
    t.equal(await page.getByRole('link', { name: 'hubdemo', exact: true }).count(), 1);
    t.equal(await page.getByRole('link', { name: '@hubtest/scoped' }).count(), 0, 'the filter applies');
    await page.reload();
    await page.getByRole('link', { name: 'hubdemo', exact: true }).waitFor();
    t.equal(await page.getByLabel('Name contains').inputValue(), 'hubde', 'reload keeps the filter');
    await checkPage(t, page, 'packages');
    await page.getByRole('link', { name: 'hubdemo', exact: true }).click();
    await page.getByRole('heading', { name: /hubdemo/ }).waitFor();
    await page.goBack();
    await page.waitForURL(/\/console\/packages\?registry=npm&q=hubde$/);
    t.equal(await page.getByLabel('Name contains').inputValue(), 'hubde', 'Back restores the search');
  });

  await t.test('Operations: create a user and a token (shown once), use it, revoke it', async (t) => {
    await page.goto(`${s.url}/console/operations`);
    await page.getByLabel('New user').fill('ci-bot');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.locator('tr[data-user="ci-bot"]').waitFor();
    await page.getByRole('button', { name: 'Tokens of ci-bot' }).click();
    await page.getByRole('heading', { name: 'Tokens of ci-bot' }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.locator('[data-secret]').textContent())?.trim() ?? '';
    t.match(secret, /^hub_/, 'the secret is shown');
    const use = async () => {
      const res = await fetch(`${s.url}/proxy/npm/hubdemo`, { headers: { authorization: `Bearer ${secret}` } });
      await res.arrayBuffer();
      return res.status;
    };
    t.equal(await use(), 200, 'the new token works against a registry');
    await checkPage(t, page, 'operations');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    t.equal(await page.locator('[data-secret]').count(), 0, 'and is not shown again');
    await page.getByRole('button', { name: /^Revoke token / }).click();
    await page
      .getByText(/revoked/)
      .first()
      .waitFor();
    // The authenticator remembers a lookup for a second on other replicas; this replica dropped it at once.
    t.equal(await use(), 401, 'a revoked token is refused');

    const check = page.getByRole('region', { name: 'Access check' });
    await check.getByLabel('User', { exact: true }).fill('alice');
    await check.getByLabel('Permission', { exact: true }).selectOption('system:write');
    await check.getByRole('button', { name: 'Check' }).click();
    t.match(await page.locator('.answer').textContent(), /deny/, 'the access-check form answers');
  });

  await t.test(
    'Incident: a flag to its exposure rows, the CSV, the audit log; a <script> summary stays text',
    async (t) => {
      const npm = npmProject(t, `${s.url}/proxy/npm/`, alice);
      t.equal(await npm.install('hubdemo@1.1.0'), null, 'alice installs hubdemo, and with it hubdep');
      await s.hub.audit.flush();
      await new Promise((r) => setTimeout(r, 5)); // the flag is raised after the pull, not in the same millisecond
      t.equal(
        await s.pushFlags([
          {
            external_id: 'MAL-7',
            registry: 'npm',
            package_name: 'hubdep',
            version: '1.0.0',
            kind: 'malware',
            effect: 'warn',
            summary: XSS,
          },
        ]),
        200,
      );

      await page.goto(`${s.url}/console/incident`);
      const link = page.getByRole('link', { name: 'osv/MAL-7' });
      await link.waitFor();
      t.equal(
        await row(page, 'osv/MAL-7').locator('.summary-text').textContent(),
        XSS,
        'the summary is shown as the text it is',
      );
      t.equal(await page.evaluate(() => (window as any).__pwned), undefined, 'and never runs');
      t.equal(await page.locator('main script, main img').count(), 0, 'no element was made from it');
      await link.click();
      await page.getByRole('note', { name: 'Coverage' }).waitFor();
      const exposure = page.locator('tr.exposure-row').filter({ hasText: 'alice' });
      await exposure.waitFor();
      t.match(await exposure.textContent(), /alice.*1\.0\.0.*direct/s, 'alice fetched the flagged version');
      // A waiver of the flag for alice, asked by the admin and approved by an operator: listed with state and expiry.
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      const asked = await s.api('POST', '/api/v1/admin/waivers', {
        target: 'flag:osv:MAL-7',
        registry: 'npm',
        package_name: 'hubdep',
        scope: { type: 'user', id: 'alice' },
        reason: 'rebuild of 4.2',
        expires_at: expires,
      });
      t.equal(asked.status, 201);
      t.equal(
        (
          await s.api(
            'POST',
            `/api/v1/admin/waivers/${asked.json.id}/approve`,
            undefined,
            await s.token('olga', { roles: ['operator'] }),
          )
        ).status,
        200,
      );
      await page.reload();
      const waiver = page.getByRole('region', { name: 'Waivers of osv/MAL-7' }).locator('tr.waiver-row');
      await waiver.waitFor();
      t.match(
        await waiver.textContent(),
        /user alice.*all.*active.*admin.*olga.*rebuild of 4\.2/s,
        'the incident view lists the waiver, its state and who decided',
      );
      t.match(
        await exposure.textContent(),
        new RegExp(`waiver ${asked.json.id} \\(user alice, until ${expires.replace(/[.]/g, '\\.')}\\)`),
        'the exposure row says alice is waived',
      );
      await checkPage(t, page, 'incident');
      await page.getByRole('button', { name: 'Block every version of hubdep' }).click();
      t.match(
        await page.getByRole('alertdialog').textContent(),
        /Every version of hubdep in npm is hidden from listings and every download is refused with 403/,
      );
      await page.getByRole('button', { name: 'Block the whole name' }).click();
      await page.getByRole('status').filter({ hasText: 'Blocked every version of hubdep.' }).waitFor();
      const whole = (await s.api('GET', '/api/v1/admin/blocks?package_name=hubdep')).json.blocks;
      t.match(
        whole,
        [{ package_name: 'hubdep', version: null, reason: 'osv/MAL-7', blocked_by: 'admin' }],
        'one whole-name block, naming the flag',
      );
      t.equal(await s.fetchTarball('hubdep', '1.0.0', alice), 403, 'and it holds');
      t.equal((await s.api('DELETE', `/api/v1/admin/blocks/${whole[0].id}`)).status, 200);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download CSV' }).click(),
      ]);
      const csv = fs.readFileSync((await download.path())!, 'utf8');
      t.match(csv.split('\n')[0], /^consumer,user_id/, 'the CSV header');
      t.match(csv, /alice/, 'and the row');
      await page.getByRole('link', { name: 'Audit log of this package' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      await row(page, /download/)
        .first()
        .waitFor();
      t.ok(await row(page, /hubdep 1\.0\.0/).count(), 'the audit log filtered to the package shows the pull');
      await checkPage(t, page, 'audit-log');
      await page.goBack();
      await page.getByLabel('Include lifted and expired flags').check();
      await page.waitForURL(/include_dead=true/);
      await link.waitFor();
    },
  );

  await t.test('Blocks: the audit filter, and bulk unblock states the count', async (t) => {
    for (const v of ['1.0.0', '1.1.0'])
      t.equal(
        (
          await s.api('POST', '/api/v1/admin/blocks', {
            registry: 'npm',
            package_name: 'hubdemo',
            version: v,
            reason: 'bulk',
          })
        ).status,
        201,
      );
    await page.goto(`${s.url}/console/blocks`);
    await page.getByRole('button', { name: 'Upstream audit only' }).click();
    await page.waitForURL(/blocked_by=system%3Aupstream-audit/);
    await page.getByText('No blocks.').waitFor();
    await page.goto(`${s.url}/console/blocks`);
    for (const v of ['1.0.0', '1.1.0'])
      await page.getByRole('checkbox', { name: `Select block of hubdemo ${v}` }).check();
    await page.getByRole('button', { name: 'Unblock 2 selected' }).click();
    t.match(
      await page.getByRole('alertdialog').textContent(),
      /Unblock 2 blocks\?/,
      'the confirmation states the count',
    );
    await checkPage(t, page, 'blocks');
    await page.getByRole('button', { name: 'Unblock 2', exact: true }).click();
    await page.getByText('Unblocked 2.').waitFor();
    t.same((await s.api('GET', '/api/v1/admin/blocks')).json.blocks, [], 'both are gone');
  });

  await t.test('a read-only user sees no controls; sign out ends the session', async (t) => {
    const auditorToken = await s.token('aud', { roles: ['auditor'] });
    const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p2 = await ctx2.newPage();
    await signInPage(p2, s, auditorToken);
    t.match(await p2.locator('.who').textContent(), /read-only/);
    await p2.goto(`${s.url}/console/packages/npm/hubdemo`);
    await row(p2, '1.1.0').waitFor();
    t.equal(await p2.getByRole('button', { name: /^(Block|Unlist|Purge) / }).count(), 0, 'no write controls');
    await ctx2.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to hub' }).waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/v1/admin/health')).status);
    t.equal(status, 401, 'the browser holds no working session');
  });

  t.same(pageErrors, [], 'no script errors and no CSP violations');
});
