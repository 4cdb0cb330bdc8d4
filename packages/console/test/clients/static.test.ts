import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { setup } from '../setup.js';
import { WEB_DIR } from '../../src/static-assets.js';

const WEB_SRC = fileURLToPath(new URL('../../../web/src/', import.meta.url));
const built = fs.existsSync(path.join(WEB_DIR, 'index.html'));

t.test(
  'index.html: strict CSP, nosniff, never framed, revalidated',
  { skip: built ? false : 'the console is not built (npm run build:console)' },
  async (t) => {
    const s = await setup(t);
    for (const p of ['/console/', '/console/packages/npm/hubdemo?page=2']) {
      const res = await fetch(`${s.url}${p}`);
      const html = await res.text();
      t.equal(res.status, 200, p);
      t.match(res.headers.get('content-type'), /^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      t.match(csp, /default-src 'self'/);
      t.match(csp, /frame-ancestors 'none'/);
      t.notMatch(csp, /unsafe-inline|unsafe-eval/);
      t.equal(res.headers.get('x-content-type-options'), 'nosniff');
      t.equal(res.headers.get('cache-control'), 'no-cache');
      t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      t.notMatch(html, /\sstyle=/, 'no inline style');
    }
    const redirect = await fetch(`${s.url}/console`, { redirect: 'manual' });
    t.equal(redirect.status, 302);
    t.equal(redirect.headers.get('location'), '/console/');
  },
);

t.test(
  'hashed assets are cached for a year; a missing one is a plain 404',
  { skip: built ? false : 'the console is not built' },
  async (t) => {
    const s = await setup(t);
    const html = await (await fetch(`${s.url}/console/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    t.ok(assets.length >= 2, 'a script and a stylesheet');
    for (const a of assets) {
      const res = await fetch(`${s.url}${a}`);
      await res.arrayBuffer();
      t.equal(res.status, 200, a);
      t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    const missing = await fetch(`${s.url}/console/assets/index-nothere.js`);
    t.equal(missing.status, 404);
    t.match(missing.headers.get('content-type'), /^text\/plain/, 'not the HTML page under a script name');
    await missing.arrayBuffer();
  },
);

t.test('the SPA never renders text as HTML', async (t) => {
  const files = fs
    .readdirSync(WEB_SRC, { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f));
  t.ok(files.length > 5);
  for (const f of files) {
    const text = fs.readFileSync(path.join(WEB_SRC, f), 'utf8');
    t.notMatch(text, /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write/, f);
  }
});
