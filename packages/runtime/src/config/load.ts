/**
 * Loads hub.toml: parse, apply schema defaults, validate, check cross-field rules, resolve `*_env`
 * secrets, normalise. Every problem is reported as `<file>:<line>: <key path>: <what is wrong>`,
 * all of them at once, so a user fixes the file in one pass instead of one error per restart.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Value } from 'typebox/value';
import { checkCrossField } from './checks.js';
import { ConfigError, Issues } from './issues.js';
import { reportSchemaErrors, unknownKey } from './schema-errors.js';
import { isTable, parseDocument, readConfigFile, TomlLocator, type KeyPath } from './toml-source.js';
import { HubConfigSchema, RegistrySchema, type ConfigSection, type HubConfig, type KindSchemas } from './schema.js';

export type { HubConfig, RegistryConfig } from './schema.js';
export { ConfigError, type ConfigIssue } from './issues.js';
export { parseDocument, readConfigFile } from './toml-source.js';

export interface FromObjectOptions {
  /** Names the source in errors. */
  file: string;
  locator?: TomlLocator;
  /** Where `*_env` names are looked up. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Kind id -> configSchema for the extra [[registries]] keys of that kind. */
  kindSchemas?: KindSchemas;
  /** The loaded plugins' own sections. */
  pluginSections?: readonly ConfigSection[];
  /** Relative paths resolve against this folder. Default: process.cwd(). */
  baseDir?: string;
}

export interface LoadOptions extends Pick<FromObjectOptions, 'env' | 'kindSchemas' | 'pluginSections'> {
  /** The file to read; also names the file in errors and anchors relative paths. */
  path?: string;
  /** The file's text (read from `path` when absent; an empty document when both are absent). */
  text?: string;
}

export function loadConfig(opts: LoadOptions): HubConfig {
  const file = opts.path ?? 'hub.toml';
  const text = opts.text ?? (opts.path === undefined ? '' : readConfigFile(opts.path));
  const doc = parseDocument(text, file);
  return configFromObject(doc, {
    file,
    locator: new TomlLocator(text),
    ...opts,
    baseDir: opts.path === undefined ? process.cwd() : dirname(resolve(opts.path)),
  });
}

/** The pipeline behind loadConfig, for configurations built in code (the built-in default). `doc` is consumed. */
export function configFromObject(doc: Record<string, unknown>, opts: FromObjectOptions): HubConfig {
  const issues = new Issues(opts.file, opts.locator);
  const extras = splitRegistryExtras(doc);
  // What each entry itself sets, before defaults fill the rest: a group refuses its members' keys only when written.
  const written = writtenKeys(doc, extras);
  const sections = applyPluginSections(issues, doc, opts.pluginSections ?? []);
  Value.Default(HubConfigSchema, doc);
  reportSchemaErrors(issues, HubConfigSchema, doc, []);
  // Kind keys are checked in the same pass, so one run reports every key problem in the file.
  // A group's own kind keys are refused by checkGroup (its members' keys apply), so the kind's defaults are not applied to it.
  const kindExtras = extras.map((extra, i) =>
    registryMode(doc, i) === 'group'
      ? extra
      : applyKindSchema(issues, i, registryType(doc, i), extra, opts.kindSchemas),
  );
  issues.throwIfAny();

  const config = doc as unknown as HubConfig;
  config.registries.forEach((reg, i) => {
    reg.extra = kindExtras[i] ?? {};
  });

  const env = opts.env ?? process.env;
  resolveEnv(issues, env, config, []);
  config.registries.forEach((reg, i) => resolveEnv(issues, env, reg.extra, ['registries', i]));
  for (const [name, value] of Object.entries(sections)) resolveEnv(issues, env, value, sectionPath(name));
  config.sections = sections;
  issues.throwIfAny();

  checkCrossField(issues, config, written);
  for (const s of opts.pluginSections ?? [])
    for (const e of s.check?.(sections[s.section], config) ?? [])
      issues.add([...sectionPath(s.section), ...e.key], e.message);
  issues.throwIfAny();

  normalise(config, opts.baseDir ?? process.cwd());
  checkTlsFiles(issues, config);
  checkAuditFiles(issues, config);
  issues.throwIfAny();
  return config;
}

// ---------------------------------------------------------------------------------------------
// Registry entries: base keys and kind keys

const BASE_REGISTRY_KEYS = Object.keys(RegistrySchema.properties);

/** Takes the keys the base registry schema does not know out of each entry; they belong to the kind. */
function splitRegistryExtras(doc: Record<string, unknown>): Array<Record<string, unknown>> {
  const regs = doc.registries;
  if (!Array.isArray(regs)) return [];
  return regs.map((reg: unknown) => {
    const extra: Record<string, unknown> = {};
    if (!isTable(reg)) return extra;
    for (const key of Object.keys(reg)) {
      if (BASE_REGISTRY_KEYS.includes(key)) continue;
      extra[key] = reg[key];
      delete reg[key];
    }
    return extra;
  });
}

function writtenKeys(doc: Record<string, unknown>, extras: ReadonlyArray<Record<string, unknown>>): Array<Set<string>> {
  const regs = Array.isArray(doc.registries) ? (doc.registries as unknown[]) : [];
  return regs.map((reg, i) => new Set([...(isTable(reg) ? Object.keys(reg) : []), ...Object.keys(extras[i] ?? {})]));
}

function registryMode(doc: Record<string, unknown>, index: number): unknown {
  const reg: unknown = Array.isArray(doc.registries) ? doc.registries[index] : undefined;
  return isTable(reg) ? reg.mode : undefined;
}

function registryType(doc: Record<string, unknown>, index: number): string | undefined {
  const reg: unknown = Array.isArray(doc.registries) ? doc.registries[index] : undefined;
  return isTable(reg) && typeof reg.type === 'string' ? reg.type : undefined;
}

/** Validates a registry's kind keys and applies the kind's defaults. An unknown type is the runtime's to report. */
function applyKindSchema(
  issues: Issues,
  index: number,
  type: string | undefined,
  extra: Record<string, unknown>,
  kindSchemas: KindSchemas | undefined,
): Record<string, unknown> {
  const base: KeyPath = ['registries', index];
  // Without a valid type the base schema already has an error to report; say nothing more.
  if (type === undefined) return extra;
  const schema = kindSchemas?.get(type);
  if (schema === undefined) {
    for (const key of Object.keys(extra))
      issues.add([...base, key], unknownKey(key, BASE_REGISTRY_KEYS, ` for type "${type}"`));
    return extra;
  }
  const value = Value.Default(schema, extra);
  reportSchemaErrors(issues, schema, value, base, BASE_REGISTRY_KEYS);
  return isTable(value) ? value : extra;
}

/** A section's key path: `auth.oidc` is the table `oidc` inside `[auth]`. */
const sectionPath = (section: string): string[] => section.split('.');

/**
 * Takes each plugin's section out of the document, applies its defaults and checks it in the same pass as the rest.
 * A dotted name (`auth.oidc`) is a table inside a runtime section: it is taken out of that section before the
 * runtime's strict schema sees it, and only a key the runtime's schema does not define may be claimed so.
 */
function applyPluginSections(
  issues: Issues,
  doc: Record<string, unknown>,
  sections: readonly ConfigSection[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sections) {
    const [top, ...inner] = sectionPath(s.section);
    const runtimeSection = (HubConfigSchema.properties as Record<string, { properties?: Record<string, unknown> }>)[
      top!
    ];
    const claimed =
      inner.length === 0
        ? runtimeSection !== undefined
        : inner.length > 1 || runtimeSection?.properties === undefined || inner[0]! in runtimeSection.properties;
    if (claimed || s.section in out)
      throw new ConfigError(
        `two owners claim the [${s.section}] section of hub.toml (a plugin's section must be its own)`,
        { key: s.section },
      );
    const parent = inner.length === 0 ? doc : doc[top!];
    const key = inner[0] ?? top!;
    const raw = isTable(parent) ? parent[key] : undefined;
    if (isTable(parent)) delete parent[key];
    const value = Value.Default(s.schema, raw);
    reportSchemaErrors(issues, s.schema, value, sectionPath(s.section));
    out[s.section] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// `*_env` secrets

/**
 * Every `<key>_env` names an environment variable whose value becomes `<key>` (a list of names, a list
 * of values). Generic on purpose:
 * a kind's own `*_env` keys get the same treatment with no code in the kind.
 */
function resolveEnv(issues: Issues, env: NodeJS.ProcessEnv, node: unknown, path: KeyPath): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => resolveEnv(issues, env, item, [...path, i]));
    return;
  }
  if (!isTable(node)) return;
  for (const key of Object.keys(node)) {
    const value = node[key];
    // A registry's `extra` is walked on its own, with key paths as written in the file (no `extra`).
    if (key === 'extra' && path.length === 2 && path[0] === 'registries') continue;
    const names =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value) && value.every((v) => typeof v === 'string')
          ? value
          : undefined;
    if (key.endsWith('_env') && key.length > 4 && names !== undefined) {
      const target = key.slice(0, -4);
      const unset = names.find((v) => env[v] === undefined || env[v] === '');
      if (node[target] !== undefined) issues.add([...path, key], `give ${target} or ${key}, not both`);
      else if (unset !== undefined) issues.add([...path, key], `environment variable ${unset} is not set`);
      // A list of names (e.g. `previous_secrets_env`) becomes the list of their values.
      else node[target] = typeof value === 'string' ? env[value] : names.map((v) => env[v]);
    } else {
      resolveEnv(issues, env, value, [...path, key]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Normalising

function normalise(c: HubConfig, baseDir: string): void {
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

/** The checkpoint key must be an unencrypted Ed25519 private key, and a syslog CA file a certificate: both read at start. */
function checkAuditFiles(issues: Issues, c: HubConfig): void {
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

const TLS_FILE_KEYS = ['ca_file', 'client_cert', 'client_key'] as const;

/** The upstream TLS files are read at start: a missing file or one of the wrong kind is a config error naming its key. */
function checkTlsFiles(issues: Issues, c: HubConfig): void {
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

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** SQLite's `:memory:` and `file:` URIs are not paths and stay as written. */
function resolvePath(baseDir: string, p: string): string {
  if (p === ':memory:' || p.startsWith('file:') || isAbsolute(p)) return p;
  return resolve(baseDir, p);
}
