/**
 * A Sigstore of our own for tests, made offline: a Fulcio-like CA and signing certificates (openssl CLI, as
 * testkit's TLS certificates are), a Rekor-like log key (node:crypto), the trusted_root.json naming both, and
 * provenance bundles (v0.3: DSSE envelope, certificate, a log entry with its SET and an inclusion proof under a
 * signed checkpoint) for a given artifact digest. Variants make the bundles hub must refuse.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SLSA_V1 = 'https://slsa.dev/provenance/v1';
const LOG_URL = 'https://rekor.test.invalid';
const LOG_NAME = 'rekor.test.invalid';
const FULCIO = '1.3.6.1.4.1.57264.1';

export interface SignerIdentity {
  /** e.g. https://forge.example/acme/widget */
  sourceRepository: string;
  workflow?: string;
  ref?: string;
}

export interface TestSigstore {
  /** The trusted_root.json file, and its JSON. */
  trustRootPath: string;
  trustRoot: unknown;
  /** A provenance attestation (predicateType + bundle) for an artifact of this sha512 (hex). */
  attestation(
    sha512hex: string,
    o: { identity: SignerIdentity; subjectName?: string; variant?: Variant },
  ): { predicateType: string; bundle: unknown };
}

/** valid; the payload changed after signing; the certificate expired before the log took the entry; no log entry; a signing certificate from another CA. */
export type Variant = 'valid' | 'tampered' | 'expired' | 'no-tlog' | 'foreign-ca';

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const sha256 = (...parts: Array<Buffer | string>) => {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
const derOf = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

function makeCa(dir: string, name: string): { certPath: string; keyPath: string; der: Buffer } {
  const keyPath = path.join(dir, `${name}.key`);
  const certPath = path.join(dir, `${name}.pem`);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyPath], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      keyPath,
      '-out',
      certPath,
      '-days',
      '3650',
      '-subj',
      `/O=hub test/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return { certPath, keyPath, der: derOf(readFileSync(certPath, 'utf8')) };
}

let serial = 1000;

/** A signing certificate as Fulcio issues one for a CI workflow: valid one day from now, code signing, the build's identity in extensions. */
function issueLeaf(
  dir: string,
  ca: { certPath: string; keyPath: string },
  id: SignerIdentity,
): { der: Buffer; key: crypto.KeyObject } {
  const n = serial++;
  const keyPath = path.join(dir, `leaf-${n}.key`);
  const csrPath = path.join(dir, `leaf-${n}.csr`);
  const certPath = path.join(dir, `leaf-${n}.pem`);
  const extPath = path.join(dir, `leaf-${n}.ext`);
  const workflow = id.workflow ?? `${id.sourceRepository}/.ci/release.yml@refs/heads/main`;
  const utf8 = (s: string) => `ASN1:UTF8String:${s.replace(/[,\n]/g, '')}`;
  writeFileSync(
    extPath,
    [
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=codeSigning',
      `subjectAltName=URI:${workflow}`,
      `${FULCIO}.8=${utf8('https://token.ci.example')}`,
      `${FULCIO}.9=${utf8(workflow)}`,
      `${FULCIO}.12=${utf8(id.sourceRepository)}`,
      `${FULCIO}.14=${utf8(id.ref ?? 'refs/heads/main')}`,
      `${FULCIO}.18=${utf8(workflow)}`,
      '',
    ].join('\n'),
  );
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyPath], dir);
  openssl(['req', '-new', '-key', keyPath, '-out', csrPath, '-subj', '/O=hub test'], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csrPath,
      '-CA',
      ca.certPath,
      '-CAkey',
      ca.keyPath,
      '-set_serial',
      String(n),
      '-days',
      '1',
      '-extfile',
      extPath,
      '-out',
      certPath,
    ],
    dir,
  );
  return { der: derOf(readFileSync(certPath, 'utf8')), key: crypto.createPrivateKey(readFileSync(keyPath)) };
}

const pae = (type: string, payload: Buffer) =>
  Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${payload.length} `), payload]);

export function makeTestSigstore(dir: string): TestSigstore {
  mkdirSync(dir, { recursive: true });
  const ca = makeCa(dir, 'fulcio-test');
  const foreign = makeCa(dir, 'foreign-ca');
  const log = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const logSpki = log.publicKey.export({ type: 'spki', format: 'der' });
  const logId = sha256(logSpki);
  const since = { start: '2000-01-01T00:00:00Z' };
  const trustRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: LOG_URL,
        hashAlgorithm: 'SHA2_256',
        publicKey: { rawBytes: b64(logSpki), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: since },
        logId: { keyId: b64(logId) },
      },
    ],
    certificateAuthorities: [
      {
        subject: { organization: 'hub test', commonName: 'fulcio-test' },
        uri: 'https://fulcio.test.invalid',
        certChain: { certificates: [{ rawBytes: b64(ca.der) }] },
        validFor: since,
      },
    ],
    ctlogs: [],
    timestampAuthorities: [],
  };
  const trustRootPath = path.join(dir, 'trusted_root.json');
  writeFileSync(trustRootPath, JSON.stringify(trustRoot, null, 2));
  let logIndex = 0;

  return {
    trustRootPath,
    trustRoot,
    attestation(sha512hex, o) {
      const variant = o.variant ?? 'valid';
      const leaf = issueLeaf(dir, variant === 'foreign-ca' ? foreign : ca, o.identity);
      const statement = {
        _type: 'https://in-toto.io/Statement/v1',
        subject: [{ name: o.subjectName ?? 'pkg:npm/artifact', digest: { sha512: sha512hex } }],
        predicateType: SLSA_V1,
        predicate: {
          buildDefinition: {
            buildType: 'https://ci.example/build/v1',
            externalParameters: { workflow: { repository: o.identity.sourceRepository } },
          },
          runDetails: { builder: { id: 'https://ci.example/runner' } },
        },
      };
      const payloadType = 'application/vnd.in-toto+json';
      const payload = Buffer.from(JSON.stringify(statement));
      const sig = crypto.sign('sha256', pae(payloadType, payload), leaf.key);
      const certPem = `-----BEGIN CERTIFICATE-----\n${b64(leaf.der)}\n-----END CERTIFICATE-----\n`;
      const body = {
        apiVersion: '0.0.2',
        kind: 'intoto',
        spec: {
          content: {
            envelope: { payloadType, signatures: [{ sig: b64(b64(sig)), publicKey: b64(certPem) }] },
            hash: {
              algorithm: 'sha256',
              value: sha256(JSON.stringify({ payloadType, payload: b64(payload) })).toString('hex'),
            },
            payloadHash: { algorithm: 'sha256', value: sha256(payload).toString('hex') },
          },
        },
      };
      const canonicalized = Buffer.from(JSON.stringify(body));
      const index = logIndex++;
      // Inside the certificate's day, or (expired) two days past it.
      const integratedTime = Math.floor(Date.now() / 1000) + (variant === 'expired' ? 2 * 86400 : 0);
      const setPayload = JSON.stringify({
        body: b64(canonicalized),
        integratedTime,
        logID: logId.toString('hex'),
        logIndex: index,
      });
      const set = crypto.sign('sha256', Buffer.from(setPayload), log.privateKey);
      // A log of one entry: the root is the leaf's hash (RFC 6962), in a checkpoint the log key signs.
      const root = sha256(Buffer.from([0]), canonicalized);
      const note = `${LOG_NAME} - test\n1\n${b64(root)}\n`;
      const noteSig = Buffer.concat([logId.subarray(0, 4), crypto.sign('sha256', Buffer.from(note), log.privateKey)]);
      const entry = {
        logIndex: String(index),
        logId: { keyId: b64(logId) },
        kindVersion: { kind: 'intoto', version: '0.0.2' },
        integratedTime: String(integratedTime),
        inclusionPromise: { signedEntryTimestamp: b64(set) },
        inclusionProof: {
          logIndex: '0',
          rootHash: b64(root),
          treeSize: '1',
          hashes: [],
          checkpoint: { envelope: `${note}\n\u2014 ${LOG_NAME} ${b64(noteSig)}\n` },
        },
        canonicalizedBody: b64(canonicalized),
      };
      const sent =
        variant === 'tampered'
          ? Buffer.from(
              JSON.stringify({ ...statement, subject: [{ name: 'pkg:npm/other', digest: { sha512: sha512hex } }] }),
            )
          : payload;
      const bundle = {
        mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        verificationMaterial: {
          certificate: { rawBytes: b64(leaf.der) },
          tlogEntries: variant === 'no-tlog' ? [] : [entry],
          timestampVerificationData: { rfc3161Timestamps: [] },
        },
        dsseEnvelope: { payload: b64(sent), payloadType, signatures: [{ sig: b64(sig), keyid: '' }] },
      };
      return { predicateType: SLSA_V1, bundle };
    },
  };
}
