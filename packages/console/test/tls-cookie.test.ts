import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { makeTestCert } from '@hub/testkit';
import { setup } from './setup.js';

t.test('over TLS the session cookie is Secure as well', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-console-cert-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const cert = makeTestCert(dir);
  const s = await setup(t, { server: { tls_cert: cert.certPath, tls_key: cert.keyPath } });
  t.match(s.url, /^https:/);
  const body = JSON.stringify({ token: s.adminToken });
  const res = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = https.request(
      `${s.url}/console/session`,
      {
        method: 'POST',
        ca: cert.cert,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (r) => {
        r.resume();
        r.on('end', () => resolve({ status: r.statusCode ?? 0, cookie: String(r.headers['set-cookie'] ?? '') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.equal(res.status, 201);
  t.match(res.cookie, /; secure/i, 'Secure');
  t.match(res.cookie, /; httponly/i);
  t.match(res.cookie, /; samesite=strict/i);
});
