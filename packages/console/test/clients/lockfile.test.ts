import t from 'tap';
import type { Page } from 'playwright-core';
import { checkPage, launch, noBrowser } from '../browser.js';
import { setup } from '../setup.js';

/**
 * The "Lockfile check" page (@hub/lockfile) in a real browser: a package-lock.json dropped on the form and
 * a requirements.txt pasted, each answered with a table of statuses that matches the API's answer.
 */
const LOCK = JSON.stringify({
  name: 'app',
  lockfileVersion: 3,
  packages: {
    '': { name: 'app' },
    'node_modules/hubdemo': { version: '1.1.0', resolved: 'https://upstream.example/hubdemo/-/hubdemo-1.1.0.tgz' },
    'node_modules/hubdep': { version: '1.0.0', resolved: 'https://upstream.example/hubdep/-/hubdep-1.0.0.tgz' },
    'node_modules/@hubtest/scoped': {
      version: '1.0.0',
      resolved: 'https://upstream.example/@hubtest/scoped/-/scoped-1.0.0.tgz',
    },
    'node_modules/hub-no-such-package': { version: '1.0.0', resolved: 'https://upstream.example/x.tgz' },
  },
});

const statusOf = (page: Page, name: string) => page.locator(`tr[data-entry="${name}"] .badge`).textContent();

t.test('lockfile check page: drop, paste, a table of statuses', { skip: noBrowser }, async (t) => {
  const s = await setup(t);
  t.equal(await s.fetchTarball('hubdep', '1.0.0'), 200);
  await s.hub.artifacts.idle();
  await s.hub.services.blocks.add({
    registry: 'npm',
    package_name: '@hubtest/scoped',
    version: '1.0.0',
    reason: 'under review',
    by: 'admin',
  });

  const browser = await launch(t);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${s.url}/console/`);
  await page.getByLabel('Token').fill(s.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Lockfile check' }).click();
  await page.getByRole('heading', { name: 'Lockfile check' }).waitFor();

  // A file dropped on the form, as a browser's drag and drop delivers it.
  const transfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'package-lock.json', { type: 'application/json' }));
    return dt;
  }, LOCK);
  await page.dispatchEvent('form[aria-label="Check a lockfile"]', 'drop', { dataTransfer: transfer });
  t.equal(
    await page.getByLabel('File name (tells the format)').inputValue(),
    'package-lock.json',
    'the dropped file named the format',
  );
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.locator('tr[data-entry="hubdep"]').waitFor();
  const api = (await s.api('POST', '/api/v1/admin/lockfile/check', { lockfile: LOCK, file_name: 'package-lock.json' }))
    .json;
  for (const e of api.entries as Array<{ name: string; status: string }>)
    t.equal(await statusOf(page, e.name), e.status, `${e.name}: the page shows the API's status`);
  t.equal(await statusOf(page, 'hubdep'), 'held');
  t.equal(await statusOf(page, 'hubdemo'), 'fetchable');
  t.equal(await statusOf(page, '@hubtest/scoped'), 'blocked');
  t.equal(await statusOf(page, 'hub-no-such-package'), 'unknown_upstream');
  t.match(await page.locator('tr[data-entry="@hubtest/scoped"]').textContent(), /under review/, 'the block reason');
  t.match(await page.getByRole('status').textContent(), /some entries cannot be installed/);
  await checkPage(t, page, 'lockfile');

  // Pasted text: a requirements.txt on a hub without a pypi registry.
  await page.getByLabel('File name (tells the format)').fill('');
  await page.getByLabel('Or paste it').fill('hubdep==1.0.0 --hash=sha256:' + 'a'.repeat(64) + '\n');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.locator('tr[data-entry="hubdep"] .badge', { hasText: 'no_registry' }).waitFor();
  // A lockfile hub cannot read: the refusal is shown as text.
  await page.getByLabel('Or paste it').fill('<script>window.__pwned = 1</script>');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  t.match(await page.getByRole('alert').textContent(), /cannot tell the lockfile's format/);
  t.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined, 'nothing pasted runs');
  t.same(errors, [], 'no page errors');
});
