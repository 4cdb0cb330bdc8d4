import t from 'tap';
import { dispositionFor, safeFileName } from '../src/server/content-safety.js';

/** Decision 0035: which replies a browser would render, judged by the claimed type and by the name (#26). */
t.test('active by type or by name; inert files keep no disposition', async (t) => {
  const active: Array<[string, string | undefined]> = [
    ['/proxy/f/a.bin', 'text/html'],
    ['/proxy/f/a.bin', 'TEXT/HTML; charset=utf-8'],
    ['/proxy/f/a.bin', 'application/xhtml+xml'],
    ['/proxy/f/a.bin', 'image/svg+xml'],
    ['/proxy/f/a.bin', 'application/xml'],
    ['/proxy/f/a.bin', 'text/xml'],
    ['/proxy/f/a.bin', 'application/atom+xml'],
    ['/proxy/f/a.bin', 'text/xsl'],
    ['/proxy/f/a.bin', 'application/pdf'],
    ['/proxy/f/a.bin', 'text/javascript'],
    ['/proxy/f/a.bin', 'application/x-javascript'],
    ['/proxy/f/a.bin', undefined],
    ['/proxy/f/logo.svg', 'image/png'],
    ['/proxy/f/page.HTML', 'application/octet-stream'],
    ['/proxy/f/x.xhtml', 'text/plain'],
    ['/proxy/f/x.pdf', 'application/octet-stream'],
    ['/proxy/f/x.mjs', 'text/plain'],
    ['/proxy/m/maven2/a/b/1/maven-metadata.xml', 'text/plain'],
  ];
  for (const [path, type] of active)
    t.match(dispositionFor(path, type, undefined), /^attachment; filename="/, `${path} ${type}`);
  const inert: Array<[string, string]> = [
    ['/proxy/npm/left-pad', 'application/json'],
    ['/proxy/npm/left-pad/-/left-pad-1.0.0.tgz', 'application/octet-stream'],
    ['/v2/dock/a/manifests/1.0', 'application/vnd.oci.image.index.v1+json'],
    ['/proxy/py/simple/demo/', 'application/vnd.pypi.simple.v1+html'],
    ['/proxy/f/notes.txt', 'text/plain; charset=utf-8'],
    ['/proxy/f/image.png', 'image/png'],
    ['/proxy/f/style.css', 'text/css'],
  ];
  for (const [path, type] of inert) t.equal(dispositionFor(path, type, undefined), undefined, `${path} ${type}`);
});

t.test("a kind's inline is kept for its own pages; anything else it says is replaced", async (t) => {
  t.equal(dispositionFor('/proxy/py/simple/demo/', 'text/html; charset=utf-8', 'inline'), undefined);
  t.equal(dispositionFor('/proxy/f/a.html', 'text/html', 'attachment; filename="x"'), 'attachment; filename="a.html"');
});

t.test('file names are safe inside a quoted string and never empty', async (t) => {
  t.equal(safeFileName('/proxy/f/docs/evil.html'), 'evil.html');
  t.equal(
    safeFileName('/proxy/f/a%22%0d%0aSet-Cookie:x.html'),
    'a___Set-Cookie_x.html',
    'quotes and CR LF cannot end the header',
  );
  t.equal(safeFileName('/proxy/f/caf%C3%A9.svg'), 'caf_.svg', 'ASCII only');
  t.equal(safeFileName('/proxy/f/bad%zz.html'), 'bad_zz.html', 'a bad escape is taken as text');
  t.equal(safeFileName('/proxy/py/simple/demo/'), 'download');
  t.equal(safeFileName('/proxy/f/..'), 'download');
  t.equal(safeFileName(`/proxy/f/${'a'.repeat(300)}.html`).length, 150, 'capped, keeping the extension');
  t.match(safeFileName(`/proxy/f/${'a'.repeat(300)}.html`), /\.html$/);
});
