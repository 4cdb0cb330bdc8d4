/**
 * Loads hub.toml: parse, apply schema defaults, validate, check cross-field rules, resolve `*_env`
 * secrets, normalise. Every problem is reported as `<file>:<line>: <key path>: <what is wrong>`,
 * all of them at once, so a user fixes the file in one pass instead of one error per restart.
 */
import { dirname, resolve } from 'node:path';
import { Value } from 'typebox/value';
import { checkCrossField } from './checks.js';
import { checkAuditFiles, checkTlsFiles } from './file-checks.js';
import { Issues } from './issues.js';
import { normalise } from './normalise.js';
import { applyPluginSections, sectionPath } from './plugin-sections.js';
import { applyKindSchema, registryMode, registryType, splitRegistryExtras, writtenKeys } from './registry-extras.js';
import { resolveEnv } from './resolve-env.js';
import { reportSchemaErrors } from './schema-errors.js';
import { parseDocument, readConfigFile, TomlLocator } from './toml-source.js';
import { HubConfigSchema, type ConfigSection, type HubConfig, type KindSchemas } from './schema.js';

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
