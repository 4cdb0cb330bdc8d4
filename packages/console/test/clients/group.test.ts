import t from 'tap';
import { launch, noBrowser } from '../browser.js';
import { setup } from '../setup.js';

/** A group registry (decision 0051) on the console's Health page: its members in order, each with its state. */
t.test('the health page shows a group with its members', { skip: noBrowser }, async (t) => {
  const s = await setup(t, {
    registries: (up) => [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: up },
      { name: 'npm-b', type: 'npm', mode: 'proxy', upstream: up },
      { name: 'npm-all', type: 'npm', mode: 'group', members: ['npm', 'npm-b'] },
    ],
  });
  const browser = await launch(t);
  const page = await browser.newPage();
  await page.goto(`${s.url}/console/`);
  await page.getByLabel('Token').fill(s.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const group = page.locator('tr[data-registry="npm-all"]');
  await group.waitFor();
  t.equal(await group.locator('td').nth(1).textContent(), 'group', 'the mode');
  t.match(await group.locator('[data-member="npm"]').textContent(), /^1\. npm \(proxy\) reachable$/);
  t.match(await group.locator('[data-member="npm-b"]').textContent(), /^2\. npm-b \(proxy\) reachable$/);
});
