/** The last step of loading: URLs without trailing slashes, relative paths anchored at hub.toml's folder. */
import { isAbsolute, resolve } from 'node:path';
import type { HubConfig } from './schema.js';

export function normalise(c: HubConfig, baseDir: string): void {
  if (c.server.public_url !== undefined) c.server.public_url = stripTrailingSlashes(c.server.public_url);
  for (const r of c.registries) {
    // `upstream` is a list of one; after loading both are set and `upstream` is the first mirror (kinds build URLs from it).
    const mirrors = (r.upstreams ?? (r.upstream === undefined ? [] : [r.upstream])).map(stripTrailingSlashes);
    if (mirrors.length > 0) {
      r.upstreams = mirrors;
      r.upstream = mirrors[0];
    }
  }
  if (c.server.ca_file !== undefined) c.server.ca_file = resolvePath(baseDir, c.server.ca_file);
  for (const r of c.registries)
    for (const key of TLS_FILE_KEYS) if (r[key] !== undefined) r[key] = resolvePath(baseDir, r[key]);
  if (c.server.tls_cert !== undefined) c.server.tls_cert = resolvePath(baseDir, c.server.tls_cert);
  if (c.server.tls_key !== undefined) c.server.tls_key = resolvePath(baseDir, c.server.tls_key);
  if (c.server.internal_ca_file !== undefined)
    c.server.internal_ca_file = resolvePath(baseDir, c.server.internal_ca_file);
  // A default in the schema would clash with chain_env, which is resolved after defaults.
  c.audit_log.chain ??= 'local';
  if (c.audit_log.checkpoint_key_file !== undefined)
    c.audit_log.checkpoint_key_file = resolvePath(baseDir, c.audit_log.checkpoint_key_file);
  for (const x of c.audit_log.export) {
    if (x.tls_ca_file !== undefined) x.tls_ca_file = resolvePath(baseDir, x.tls_ca_file);
    if (x.path !== undefined) x.path = resolvePath(baseDir, x.path);
  }
  c.database.filename = resolvePath(baseDir, c.database.filename);
  c.storage.path = resolvePath(baseDir, c.storage.path);
  if (c.auth.admin_token_sha256 !== undefined) c.auth.admin_token_sha256 = c.auth.admin_token_sha256.toLowerCase();
}

const TLS_FILE_KEYS = ['ca_file', 'client_cert', 'client_key'] as const;

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** SQLite's `:memory:` and `file:` URIs are not paths and stay as written. */
function resolvePath(baseDir: string, p: string): string {
  if (p === ':memory:' || p.startsWith('file:') || isAbsolute(p)) return p;
  return resolve(baseDir, p);
}
