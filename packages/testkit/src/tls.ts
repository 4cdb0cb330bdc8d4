/**
 * Self-signed certificates for tests, made with the openssl CLI.
 *
 * The certificate is for CN=127.0.0.1 with subjectAltName IP:127.0.0.1 and
 * DNS:localhost, valid for 2 days, EC P-256 key. It is its own trust root:
 * pass `cert` as `ca` to node clients, or `certPath` as SSL_CERT_FILE to Go
 * and Terraform.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCert {
  cert: string;
  key: string;
  certPath: string;
  keyPath: string;
}

export function makeTestCert(dir: string): TestCert {
  mkdirSync(dir, { recursive: true });
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath, keyPath };
}

/** A private certificate authority for tests, and certificates it signs (server or client). */
export interface TestCa {
  /** The CA certificate (PEM) and its file: what `ca_file` points at. */
  cert: string;
  certPath: string;
  /** A certificate signed by this CA for `names` (DNS names and IP addresses), with its key. */
  issue(file: string, names: readonly string[], use?: 'server' | 'client'): TestCert;
}

export function makeTestCa(dir: string, commonName = 'hub test CA'): TestCa {
  mkdirSync(dir, { recursive: true });
  const certPath = path.join(dir, 'ca.pem');
  const keyPath = path.join(dir, 'ca.key');
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    keyPath,
    '-out',
    certPath,
    '-days',
    '2',
    '-subj',
    `/CN=${commonName}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    cert: readFileSync(certPath, 'utf8'),
    certPath,
    issue(file, names, use = 'server') {
      const leafCert = path.join(dir, `${file}.pem`);
      const leafKey = path.join(dir, `${file}.key`);
      const csr = path.join(dir, `${file}.csr`);
      const ext = path.join(dir, `${file}.ext`);
      const alt = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
      writeFileSync(
        ext,
        `${alt ? `subjectAltName=${alt}\n` : ''}extendedKeyUsage=${use === 'server' ? 'serverAuth' : 'clientAuth'}\nbasicConstraints=CA:FALSE\n`,
      );
      run(['req', ...ec, '-keyout', leafKey, '-out', csr, '-subj', `/CN=${names[0] ?? file}`]);
      run([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        certPath,
        '-CAkey',
        keyPath,
        '-CAcreateserial',
        '-out',
        leafCert,
        '-days',
        '2',
        '-extfile',
        ext,
      ]);
      return {
        cert: readFileSync(leafCert, 'utf8'),
        key: readFileSync(leafKey, 'utf8'),
        certPath: leafCert,
        keyPath: leafKey,
      };
    },
  };
}
