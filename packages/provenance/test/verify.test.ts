import crypto from 'node:crypto';
import t from 'tap';
import { loadTrustRoot, verifyAttestations } from '../src/index.js';
import { makeTestSigstore, SLSA_V1 } from './sigstore-fixture.js';

const SOURCE = 'https://forge.example/acme/widget';
const digest = crypto.createHash('sha512').update('the tarball').digest('hex');

t.test('bundles made with a test trust root: verified, or failed with the reason (issue 30)', async (t) => {
  const sig = makeTestSigstore(t.testdir());
  const trust = loadTrustRoot(sig.trustRootPath);
  const subjectDigest = { algorithm: 'sha512' as const, hex: digest };
  const check = (variant: Parameters<typeof sig.attestation>[1]['variant'], hex = digest) =>
    verifyAttestations(trust, {
      bundles: [sig.attestation(hex, { identity: { sourceRepository: SOURCE }, variant })],
      subjectDigest,
    });

  t.match(
    check('valid'),
    {
      status: 'verified',
      sourceRepository: SOURCE,
      workflow: `${SOURCE}/.ci/release.yml@refs/heads/main`,
      ref: 'refs/heads/main',
      builder: `${SOURCE}/.ci/release.yml@refs/heads/main`,
    },
    'a valid bundle verifies and names its build',
  );
  t.match(
    check('tampered'),
    { status: 'failed', reason: /payload hash mismatch|signature/i },
    'a payload changed after signing fails (the log entry no longer matches it)',
  );
  t.match(
    check('expired'),
    { status: 'failed', reason: /certificate/i },
    'a certificate outside its validity at the integrated time fails',
  );
  t.match(
    check('no-tlog'),
    { status: 'failed', reason: /timestamp|tlog/i },
    'a bundle without a transparency-log entry fails',
  );
  t.match(
    check('foreign-ca'),
    { status: 'failed', reason: /certificate/i },
    'a certificate from a CA outside the trust root fails',
  );
  const other = crypto.createHash('sha512').update('another tarball').digest('hex');
  t.match(
    check('valid', other),
    { status: 'failed', reason: /no subject of the statement has the artifact's sha512 digest/ },
    'a bundle for other bytes does not cover this artifact',
  );
  t.match(verifyAttestations(trust, null), { status: 'absent' }, 'nothing attested is absent');
  t.match(verifyAttestations(trust, { bundles: [], subjectDigest }), {
    status: 'failed',
    reason: /lists attestations but serves none/,
  });
  t.match(
    verifyAttestations(trust, {
      bundles: [{ predicateType: 'https://publish.example/v0.1', bundle: {} }],
      subjectDigest,
    }),
    { status: 'absent', reason: /no SLSA provenance/ },
  );
  t.match(
    verifyAttestations(trust, {
      bundles: [{ predicateType: SLSA_V1, bundle: { mediaType: 'nonsense' } }],
      subjectDigest,
    }),
    { status: 'failed', reason: /not a Sigstore bundle/ },
    'hostile JSON is a failure, not a crash',
  );
  t.match(verifyAttestations(trust, { bundles: [{ predicateType: SLSA_V1, bundle: 'x'.repeat(10) }], subjectDigest }), {
    status: 'failed',
  });
});

t.test('the shipped trust root loads; a bad override stops hub naming the file', async (t) => {
  t.ok(loadTrustRoot().material.certificateAuthorities.length > 0, 'the default trust root has Fulcio CAs');
  const dir = t.testdir({ 'bad.json': '{"tlogs": []}', 'notjson.json': 'nope' });
  t.throws(
    () => loadTrustRoot(`${dir}/bad.json`),
    /trust_root .*bad\.json: a trust root needs at least one certificate authority/,
  );
  t.throws(() => loadTrustRoot(`${dir}/notjson.json`), /trust_root .*notjson\.json/);
  t.throws(() => loadTrustRoot(`${dir}/missing.json`), /trust_root .*missing\.json/);
});
