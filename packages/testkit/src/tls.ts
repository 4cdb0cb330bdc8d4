/**
 * Self-signed certificates for tests, made with the openssl CLI.
 *
 * The certificate is for CN=127.0.0.1 with subjectAltName IP:127.0.0.1 and
 * DNS:localhost, valid for 2 days, EC P-256 key. It is its own trust root:
 * pass `cert` as `ca` to node clients, or `certPath` as SSL_CERT_FILE to Go
 * and Terraform.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
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
