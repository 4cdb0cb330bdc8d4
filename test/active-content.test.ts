import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import generic from '@hub/kind-path/generic';
import maven from '@hub/kind-maven';
import npm from '@hub/kind-npm';
import oci from '@hub/kind-oci';
import pypi from '@hub/kind-pypi';
import publishing from '@hub/publishing';
import {
  chainHandlers,
  npmFixtureHandler,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type RawResponse,
} from '@hub/testkit';

/**
 * Issue 26, item 1 (docs/decisions/0035): nothing hub serves on a registry route runs as active content on its
 * origin. Every answer (hit, miss, error, refusal) says `nosniff` and carries the sandbox policy; a file a browser
 * would render (by the type claimed for it or by its name) is an attachment, whatever its upstream claimed.
 */
const NPM_FIXTURES = fileURLToPath(new URL('../../packages/kind-npm/test/fixtures/upstream/', import.meta.url));
const MAVEN_FIXTURES = fileURLToPath(new URL('../../packages/kind-maven/test/fixtures/upstream/', import.meta.url));
const SANDBOX = "sandbox; default-src 'none'";
const EVIL_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/console/session")</script></svg>';

/** An upstream that lies about types: an SVG claimed to be a PNG, an HTML page, and a file that fails. */
const lyingFiles: FixtureHandler = (req, res) => {
  const p = (req.url ?? '').split('?')[0];
  const send = (status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
  if (p === '/files/logo.svg') return send(200, 'image/png', EVIL_SVG);
  if (p === '/files/page.html') return send(200, 'text/html', '<html><script>1</script></html>');
  if (p === '/files/data.bin') return send(200, 'application/octet-stream', 'plain bytes');
  if (p === '/files/fail.bin') return send(500, 'text/plain', 'upstream broke');
  if (p === '/simple/demo/')
    return send(
      200,
      'text/html',
      `<html><body><a href="../../files/demo-1.0.tar.gz#sha256=${'0'.repeat(64)}">demo-1.0.tar.gz</a></body></html>`,
    );
  return false;
};

function safe(t: Test, r: RawResponse, what: string) {
  t.equal(r.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  t.equal(r.headers.get('content-security-policy'), SANDBOX, `${what}: sandbox policy`);
  t.equal(
    r.headers.get('strict-transport-security'),
    null,
    `${what}: no HSTS over plain HTTP without an https public_url`,
  );
}

t.test('registry answers carry nosniff and the sandbox policy; active files are attachments (#26)', async (t) => {
  const root = t.testdir({ hub: {} });
  const upstream = await startFixtureUpstream({ handler: chainHandlers(lyingFiles, npmFixtureHandler(NPM_FIXTURES)) });
  t.teardown(() => upstream.close());
  const mavenUpstream = await startFixtureUpstream({ root: MAVEN_FIXTURES });
  t.teardown(() => mavenUpstream.close());
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [generic, npm, maven, oci, pypi, publishing],
    registries: [
      { name: 'files', type: 'generic', mode: 'proxy', upstream: `${upstream.url}/files` },
      { name: 'pub', type: 'generic', mode: 'local' },
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
      { name: 'maven', type: 'maven', mode: 'proxy', upstream: mavenUpstream.url },
      { name: 'dock', type: 'oci', mode: 'proxy', upstream: upstream.url },
      { name: 'py', type: 'pypi', mode: 'proxy', upstream: `${upstream.url}/simple` },
    ],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const get = (p: string, headers: Record<string, string> = {}) => rawRequest(`${hub.url}${p}`, { headers });

  await t.test('an SVG its upstream calls image/png: attachment on the miss and on the hit', async (t) => {
    for (const pass of ['miss', 'hit']) {
      const r = await get('/proxy/files/logo.svg');
      t.equal(r.status, 200);
      t.equal(r.headers.get('x-hub-cache'), pass);
      safe(t, r, `svg ${pass}`);
      t.equal(r.headers.get('content-disposition'), 'attachment; filename="logo.svg"', `svg ${pass}: attachment`);
      t.notMatch(r.headers.get('content-type') ?? '', /svg|html|xml/, 'never served as an active type');
      await hub.hub.artifacts.idle();
    }
  });

  await t.test('an HTML page from an upstream, and a plain file beside it', async (t) => {
    const page = await get('/proxy/files/page.html');
    t.equal(page.status, 200);
    safe(t, page, 'html');
    t.equal(page.headers.get('content-disposition'), 'attachment; filename="page.html"');
    const bin = await get('/proxy/files/data.bin');
    safe(t, bin, 'bin');
    t.equal(bin.headers.get('content-disposition'), null, 'an inert file is not forced to download');
    const head = await rawRequest(`${hub.url}/proxy/files/page.html`, { method: 'HEAD' });
    safe(t, head, 'HEAD');
    t.equal(head.headers.get('content-disposition'), 'attachment; filename="page.html"', 'HEAD says the same');
  });

  await t.test('errors: an upstream failure, an unknown path, an unknown registry, a refused write', async (t) => {
    const failed = await get('/proxy/files/fail.bin');
    t.equal(failed.status, 502);
    safe(t, failed, '502');
    const missing = await get('/proxy/npm/no-such-package-here');
    t.equal(missing.status, 404);
    safe(t, missing, 'npm 404');
    const noRegistry = await get('/proxy/nope/x.html');
    t.equal(noRegistry.status, 404);
    safe(t, noRegistry, 'unknown registry');
    const write = await rawRequest(`${hub.url}/proxy/files/x.html`, { method: 'PUT' });
    t.ok(write.status >= 400);
    safe(t, write, 'refused write');
  });

  await t.test('a file published with an .html name downloads, whatever Content-Type it was sent with', async (t) => {
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const put = await fetch(`${hub.url}/proxy/pub/docs/evil.html`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${publisher}`, 'content-type': 'image/png' },
      body: '<script>alert(1)</script>',
    });
    t.equal(put.status, 201);
    await put.arrayBuffer();
    const r = await get('/proxy/pub/docs/evil.html');
    t.equal(r.status, 200);
    safe(t, r, 'published html');
    t.equal(r.headers.get('content-disposition'), 'attachment; filename="evil.html"');
  });

  await t.test('npm: the packument stays JSON for clients, tarballs on miss and hit carry the headers', async (t) => {
    const doc = await get('/proxy/npm/hubdemo', { accept: 'application/json' });
    t.equal(doc.status, 200);
    safe(t, doc, 'packument');
    t.equal(doc.headers.get('content-disposition'), null, 'JSON is not active content');
    for (const pass of ['miss', 'hit']) {
      const tgz = await get('/proxy/npm/hubdemo/-/hubdemo-1.0.0.tgz');
      t.equal(tgz.status, 200);
      safe(t, tgz, `tarball ${pass}`);
      await hub.hub.artifacts.idle();
    }
  });

  await t.test('maven: a POM and maven-metadata.xml are XML, so attachments (mvn does not mind)', async (t) => {
    const pom = await get('/proxy/maven/maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom');
    t.equal(pom.status, 200);
    safe(t, pom, 'pom');
    t.match(pom.headers.get('content-disposition') ?? '', /^attachment; filename="hamcrest-core-1\.3\.pom"$/);
    const meta = await get('/proxy/maven/maven2/org/hamcrest/hamcrest-core/maven-metadata.xml');
    t.equal(meta.status, 200);
    safe(t, meta, 'maven-metadata.xml');
    t.equal(meta.headers.get('content-disposition'), 'attachment; filename="maven-metadata.xml"');
  });

  await t.test('pypi: the simple page hub renders stays inline HTML for pip and people, sandboxed', async (t) => {
    const page = await get('/proxy/py/simple/demo/', { accept: 'text/html' });
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type') ?? '', /^text\/html/);
    safe(t, page, 'simple page');
    t.equal(page.headers.get('content-disposition'), 'inline', 'the kind renders it from escaped values');
    t.match(page.body.toString('utf8'), /demo-1\.0\.tar\.gz/);
  });

  await t.test('oci, mounted at the host root: the version check and an error', async (t) => {
    const base = await get('/v2/');
    safe(t, base, '/v2/');
    const missing = await get('/v2/dock/hub/none/manifests/1.0');
    t.ok(missing.status >= 400);
    safe(t, missing, 'oci error');
  });

  await t.test("the hub's other routes carry them too", async (t) => {
    safe(t, await get('/healthz'), '/healthz');
    safe(t, await get('/nothing-here'), 'no route');
  });
});
