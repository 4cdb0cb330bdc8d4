/**
 * Replicas may reach each other over TLS (issue 26): with https listeners and `[server] internal_ca_file`
 * naming the CA of their certificates, the peer secret and the streamed artifact travel encrypted, and a
 * replica whose certificate the CA did not sign is not streamed from.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase, filesKind, startFixtureUpstream, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';
import cluster from '../src/index.js';

const skip = TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set';
const BIG = crypto.randomBytes(4 * 1024 * 1024);
const BIG_SHA = crypto.createHash('sha256').update(BIG).digest('hex');

/** A self-signed certificate for 127.0.0.1, made by openssl: its own CA. */
function selfSigned(dir: string, name: string) {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

function download(url: string, ca: Buffer): Promise<{ status: number; cache?: string; sha256: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent: false, ca }, (res) => {
        const hash = crypto.createHash('sha256');
        res.on('data', (c: Buffer) => hash.update(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            cache: res.headers['x-hub-cache'] as string | undefined,
            sha256: hash.digest('hex'),
          }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function replicas(
  t: Test,
  o: { trustedCa: (name: 'a' | 'b', certs: { a: string; b: string; both: string }) => string },
) {
  const top = t.testdir({});
  const a = selfSigned(top, 'a');
  const b = selfSigned(top, 'b');
  const both = path.join(top, 'both.crt');
  fs.writeFileSync(both, Buffer.concat([fs.readFileSync(a.cert), fs.readFileSync(b.cert)]));
  const upstream = await startFixtureUpstream({
    handler: async (req, res) => {
      if (req.url !== '/pkg/1.0.0/big.bin') return false;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG.length) });
      for (let off = 0; off < BIG.length; off += 256 * 1024) {
        res.write(BIG.subarray(off, off + 256 * 1024));
        await new Promise((r) => setTimeout(r, 60));
      }
      res.end();
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const db = await createTestDatabase(TEST_MYSQL_URL!);
  t.teardown(() => db.drop());
  const start = async (name: 'a' | 'b', tls: { cert: string; key: string }) => {
    const hub = await startTestHub({
      dir: path.join(top, name),
      plugins: [filesKind, cluster],
      registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
      mysqlUrl: db.url,
      storagePath: path.join(top, 'shared-blobs'),
      config: {
        server: {
          tls_cert: tls.cert,
          tls_key: tls.key,
          internal_ca_file: o.trustedCa(name, { a: a.cert, b: b.cert, both }),
        },
        auth: { anonymous: ['source:read'] },
        cache: { fetch_lease_secs: 3 },
      },
    });
    t.teardown(() => hub.close());
    return hub;
  };
  const ha = await start('a', a);
  const hb = await start('b', b);
  t.match(ha.url, /^https:/);
  return { upstream, ha, hb, ca: fs.readFileSync(both) };
}

t.test(
  'https internal_url: a waiter streams from the replica fetching, over TLS checked against internal_ca_file',
  { skip },
  async (t) => {
    const { upstream, ha, hb, ca } = await replicas(t, { trustedCa: (_name, c) => c.both });
    const advertised = (await ha.hub.db('replicas').select('internal_url')) as Array<{ internal_url: string }>;
    t.ok(
      advertised.length === 2 && advertised.every((r) => r.internal_url.startsWith('https://127.0.0.1:')),
      'both replicas advertise https',
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => download(`${(i % 2 ? hb : ha).url}/proxy/files/pkg/1.0.0/big.bin`, ca)),
    );
    t.equal(upstream.count('/pkg/1.0.0/big.bin'), 1, 'one upstream fetch');
    t.ok(
      results.every((r) => r.status === 200 && r.sha256 === BIG_SHA),
      'every client got the whole file',
    );
    t.equal(
      results.filter((r) => r.cache === 'peer').length,
      3,
      "the other replica's waiters streamed from the fetching one, over https",
    );
  },
);

t.test('a peer whose certificate internal_ca_file does not vouch for is not streamed from', { skip }, async (t) => {
  // Each replica trusts only its own certificate: the other's is refused, so no waiter streams from it.
  const { upstream, ha, hb, ca } = await replicas(t, { trustedCa: (name, c) => c[name] });
  const results = await Promise.all(
    Array.from({ length: 4 }, (_, i) => download(`${(i % 2 ? hb : ha).url}/proxy/files/pkg/1.0.0/big.bin`, ca)),
  );
  t.ok(
    results.every((r) => r.status === 200 && r.sha256 === BIG_SHA),
    'every client still got the whole file',
  );
  t.equal(results.filter((r) => r.cache === 'peer').length, 0, 'none through the peer route: the TLS handshake failed');
  t.ok(upstream.count('/pkg/1.0.0/big.bin') >= 1);
});
