/** The files hub.toml names that are read at start (TLS, audit keys): checked at load, so a bad one is a config error. */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Issues } from './issues.js';
import type { KeyPath } from './toml-source.js';
import type { HubConfig } from './schema.js';

/** The checkpoint key must be an unencrypted Ed25519 private key, and a syslog CA file a certificate: both read at start. */
export function checkAuditFiles(issues: Issues, c: HubConfig): void {
  const a = c.audit_log;
  if (a.checkpoint_key_file !== undefined) {
    try {
      const key = createPrivateKey(readFileSync(a.checkpoint_key_file));
      if (key.asymmetricKeyType !== 'ed25519')
        issues.add(
          ['audit_log', 'checkpoint_key_file'],
          `${a.checkpoint_key_file} holds a ${key.asymmetricKeyType ?? 'non-asymmetric'} key; an Ed25519 key is needed (openssl genpkey -algorithm ed25519)`,
        );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      issues.add(
        ['audit_log', 'checkpoint_key_file'],
        code?.startsWith('ERR_')
          ? `${a.checkpoint_key_file} holds no unencrypted PEM private key`
          : `cannot read ${a.checkpoint_key_file} (${code ?? 'error'})`,
      );
    }
  }
  a.export.forEach((x, i) => {
    if (x.tls_ca_file === undefined) return;
    let text = '';
    try {
      text = readFileSync(x.tls_ca_file, 'utf8');
    } catch (e) {
      return issues.add(
        ['audit_log', 'export', i, 'tls_ca_file'],
        `cannot read ${x.tls_ca_file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!/-----BEGIN CERTIFICATE-----/.test(text))
      issues.add(['audit_log', 'export', i, 'tls_ca_file'], `${x.tls_ca_file} holds no PEM certificate`);
  });
}

/** The upstream TLS files are read at start: a missing file or one of the wrong kind is a config error naming its key. */
export function checkTlsFiles(issues: Issues, c: HubConfig): void {
  const check = (path: KeyPath, file: string, want: 'certificate' | 'key'): void => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      return issues.add(path, `cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const pem = want === 'certificate' ? /-----BEGIN CERTIFICATE-----/ : /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/;
    if (!pem.test(text))
      issues.add(
        path,
        `${file} holds no PEM ${want} (-----BEGIN ${want === 'certificate' ? 'CERTIFICATE' : 'PRIVATE KEY'}-----)`,
      );
    else if (want === 'key' && /ENCRYPTED/.test(text))
      issues.add(path, `${file} is an encrypted key; hub needs it unencrypted (readable by hub only)`);
  };
  if (c.server.ca_file !== undefined) check(['server', 'ca_file'], c.server.ca_file, 'certificate');
  c.registries.forEach((r, i) => {
    if (r.ca_file !== undefined) check(['registries', i, 'ca_file'], r.ca_file, 'certificate');
    if (r.client_cert !== undefined) check(['registries', i, 'client_cert'], r.client_cert, 'certificate');
    if (r.client_key !== undefined) check(['registries', i, 'client_key'], r.client_key, 'key');
  });
}
