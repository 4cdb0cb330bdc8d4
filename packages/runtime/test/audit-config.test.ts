/**
 * `[audit_log]` chain, checkpoint key and `[[audit_log.export]]` keys (decision 0065): what loads, and each
 * mistake as an error naming the key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../src/config/load.js';

function errorOf(file: string): string {
  try {
    loadConfig({ path: file });
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return 'loaded';
}

t.test('keys load, paths resolve against the config file, mistakes name their key', async (t) => {
  const dir = t.testdir();
  const ed = crypto.generateKeyPairSync('ed25519');
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  fs.writeFileSync(path.join(dir, 'ed.pem'), ed.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(path.join(dir, 'ec.pem'), ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(path.join(dir, 'not-a-cert.pem'), 'hello');
  const write = (body: string) => {
    const f = path.join(dir, `hub-${crypto.randomUUID()}.toml`);
    fs.writeFileSync(f, body);
    return f;
  };

  const ok = loadConfig({
    path: write(
      '[audit_log]\nchain = "replica-a"\ncheckpoint_key_file = "ed.pem"\ncheckpoint_key_id = "k1"\n\n[[audit_log.export]]\ntype = "jsonl"\npath = "out/audit.jsonl"\n\n[[audit_log.export]]\ntype = "syslog"\naddress = "[::1]:6514"\n',
    ),
  });
  t.match(ok.audit_log, {
    chain: 'replica-a',
    checkpoint_key_file: path.join(dir, 'ed.pem'),
    checkpoint_key_id: 'k1',
    checkpoint_every_rows: 10000,
    checkpoint_every_secs: 300,
  });
  t.match(ok.audit_log.export, [
    { type: 'jsonl', path: path.join(dir, 'out/audit.jsonl') },
    { type: 'syslog', address: '[::1]:6514', app_name: 'hub', facility: 13 },
  ]);
  t.equal(
    loadConfig({ path: write('[audit_log]\nchain_env = "HUB_CHAIN_T"\n'), env: { HUB_CHAIN_T: 'pod-7' } }).audit_log
      .chain,
    'pod-7',
    'chain_env',
  );

  t.match(
    errorOf(write('[audit_log]\ncheckpoint_key_file = "ec.pem"\n')),
    /audit_log\.checkpoint_key_file.*holds a ec key; an Ed25519 key is needed/,
  );
  t.match(
    errorOf(write('[audit_log]\ncheckpoint_key_file = "missing.pem"\n')),
    /audit_log\.checkpoint_key_file.*cannot read .*ENOENT/,
  );
  t.match(
    errorOf(write('[audit_log]\ncheckpoint_key_file = "not-a-cert.pem"\n')),
    /audit_log\.checkpoint_key_file.*holds no unencrypted PEM private key/,
  );
  t.match(errorOf(write('[audit_log]\nchain = "a b"\n')), /audit_log\.chain/);
  t.match(errorOf(write('[[audit_log.export]]\ntype = "syslog"\n')), /audit_log\.export\[0\]\.address.*needs address/);
  t.match(
    errorOf(write('[[audit_log.export]]\ntype = "syslog"\naddress = "host"\n')),
    /audit_log\.export\[0\]\.address.*host:port/,
  );
  t.match(
    errorOf(write('[[audit_log.export]]\ntype = "syslog"\naddress = "h:1"\ntls_ca_file = "not-a-cert.pem"\n')),
    /audit_log\.export\[0\]\.tls_ca_file.*no PEM certificate/,
  );
  t.match(
    errorOf(write('[[audit_log.export]]\ntype = "jsonl"\naddress = "h:1"\n')),
    /needs path[^]*only used with type = "syslog"/,
  );
  t.match(
    errorOf(
      write('[[audit_log.export]]\ntype = "jsonl"\npath = "a"\n\n[[audit_log.export]]\ntype = "jsonl"\npath = "a"\n'),
    ),
    /audit_log\.export\[1\]\.name.*share the cursor name/,
  );
  t.match(errorOf(write('[[audit_log.export]]\ntype = "kafka"\n')), /audit_log\.export\[0\]\.type/);
});
