import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { npmEnv, missingClient } from '@hub/testkit';

/** Debian's chromium (apt-get install chromium; .ci/run installs it): no browser download. */
export const CHROMIUM = '/usr/bin/chromium';
export const noBrowser = fs.existsSync(CHROMIUM) ? false : missingClient(CHROMIUM, 'apt-get install chromium');

const AXE = fileURLToPath(new URL('../../../../node_modules/axe-core/axe.min.js', import.meta.url));
/** Screenshots of every page at 1280 and 360 px, checked by eye; two of them are the README's. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test/screenshots/', import.meta.url));

let axeText: string | undefined;
const axeSource = () => (axeText ??= fs.readFileSync(AXE, 'utf8'));

export async function launch(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

/**
 * axe-core on the page as it stands (zero serious or critical violations), then screenshots at 1280 and
 * 360 px; at 360 px the page itself must not scroll sideways (wide tables scroll in their own box).
 */
export async function checkPage(t: Test, page: Page, name: string): Promise<void> {
  // Not addScriptTag: it injects an inline <script>, which the console's CSP rightly refuses. evaluate() runs
  // through the DevTools protocol, outside the page's CSP, so the policy under test stays as served.
  await page.evaluate(axeSource());
  const result = (await page.evaluate(async () => {
    const r = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  })) as Array<{ id: string; impact: string; help: string; nodes: string[] }>;
  const bad = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(bad, [], `${name}: no serious or critical axe violations`);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 360, height: 780 });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  t.ok(overflow <= 0, `${name}: fits 360 px without sideways page scroll (${overflow} px over)`);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-360.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A throwaway npm project whose .npmrc points at hub with a token: an install answers null or npm's stderr. */
export function npmProject(t: Test, registry: string, token: string) {
  const env = npmEnv(t, registry, token);
  return {
    install: async (...pkgs: string[]) => {
      const res = await env.npm(['install', '--no-save', '--no-package-lock', '--prefer-online', ...pkgs]);
      return res.code === 0 ? null : res.stderr || 'failed';
    },
    installed: (name: string) => (env.installed(name)?.version as string | undefined) ?? null,
    clean: () => fs.rmSync(env.modules, { recursive: true, force: true }),
  };
}
