/**
 * Loads hub.toml: parse, apply schema defaults, validate, check cross-field rules, resolve `*_env`
 * secrets, normalise. Every problem is reported as `<file>:<line>: <key path>: <what is wrong>`,
 * all of them at once, so a user fixes the file in one pass instead of one error per restart.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { HubConfigSchema, RegistrySchema, type ConfigSection, type HubConfig, type KindSchemas, type RegistryConfig } from './schema.js';

export type { HubConfig, RegistryConfig } from './schema.js';

/** One problem in the configuration. */
export interface ConfigIssue {
  /** The key in TOML terms, e.g. `registries[1].mode`. */
  key?: string;
  /** 1-based line in the file where the key (or, for a missing key, its table) is written. */
  line?: number;
  message: string;
}

export class ConfigError extends Error {
  /** The first issue's key. */
  key?: string;
  /** The first issue's line. */
  line?: number;
  file?: string;
  /** Every problem found; `message` lists them one per line. */
  readonly issues: readonly ConfigIssue[];

  constructor(message: string, opts: { key?: string; line?: number; file?: string; issues?: readonly ConfigIssue[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ConfigError';
    this.key = opts.key;
    this.line = opts.line;
    this.file = opts.file;
    this.issues = opts.issues ?? [{ key: opts.key, line: opts.line, message }];
  }
}

export interface LoadOptions {
  /** The file to read; also names the file in errors and anchors relative paths. */
  path?: string;
  /** The file's text (read from `path` when absent; an empty document when both are absent). */
  text?: string;
  /** Where `*_env` names are looked up. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Kind id -> configSchema for the extra [[registries]] keys of that kind. */
  kindSchemas?: KindSchemas;
  /** The loaded plugins' own sections. */
  pluginSections?: readonly ConfigSection[];
}

export function loadConfig(opts: LoadOptions): HubConfig {
  const file = opts.path ?? 'hub.toml';
  const text = opts.text ?? (opts.path === undefined ? '' : readConfigFile(opts.path));
  const doc = parseDocument(text, file);
  return configFromObject(doc, {
    file,
    locator: new TomlLocator(text),
    env: opts.env,
    kindSchemas: opts.kindSchemas,
    pluginSections: opts.pluginSections,
    baseDir: opts.path === undefined ? process.cwd() : dirname(resolve(opts.path)),
  });
}

export interface FromObjectOptions {
  /** Names the source in errors. */
  file: string;
  locator?: TomlLocator;
  env?: NodeJS.ProcessEnv;
  kindSchemas?: KindSchemas;
  pluginSections?: readonly ConfigSection[];
  /** Relative paths resolve against this folder. Default: process.cwd(). */
  baseDir?: string;
}

/** The pipeline behind loadConfig, for configurations built in code (the built-in default). `doc` is consumed. */
export function configFromObject(doc: Record<string, unknown>, opts: FromObjectOptions): HubConfig {
  const issues = new Issues(opts.file, opts.locator);
  const extras = splitRegistryExtras(doc);
  const sections = applyPluginSections(issues, doc, opts.pluginSections ?? []);
  Value.Default(HubConfigSchema, doc);
  reportSchemaErrors(issues, HubConfigSchema, doc, []);
  // Kind keys are checked in the same pass, so one run reports every key problem in the file.
  const kindExtras = extras.map((extra, i) => applyKindSchema(issues, i, registryType(doc, i), extra, opts.kindSchemas));
  issues.throwIfAny();

  const config = doc as unknown as HubConfig;
  config.registries.forEach((reg, i) => {
    reg.extra = kindExtras[i] ?? {};
  });

  const env = opts.env ?? process.env;
  resolveEnv(issues, env, config, []);
  config.registries.forEach((reg, i) => resolveEnv(issues, env, reg.extra, ['registries', i]));
  resolveEnv(issues, env, sections, []);
  config.sections = sections;
  issues.throwIfAny();

  checkCrossField(issues, config);
  for (const s of opts.pluginSections ?? []) for (const e of s.check?.(sections[s.section]) ?? []) issues.add([s.section, ...e.key], e.message);
  issues.throwIfAny();

  normalise(config, opts.baseDir ?? process.cwd());
  return config;
}

// ---------------------------------------------------------------------------------------------
// Reading and parsing

export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new ConfigError(`${path}: cannot read the configuration file: ${reason}`, { file: path, cause: e });
  }
}

export function parseDocument(text: string, file: string): Record<string, unknown> {
  try {
    return toPlain(parseToml(text)) as Record<string, unknown>;
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    const [first = 'invalid TOML', ...rest] = e.message.split('\n');
    const reason = first.replace(/^Invalid TOML document: /, '');
    const excerpt = rest.join('\n').trimEnd();
    const message = `${file}:${e.line}:${e.column}: invalid TOML: ${reason}${excerpt ? `\n${excerpt}` : ''}`;
    throw new ConfigError(message, { file, line: e.line, cause: e });
  }
}

/** smol-toml returns null-prototype objects; consumers (and deep-equal in tests) expect plain ones. */
function toPlain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toPlain);
  if (isTable(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

// ---------------------------------------------------------------------------------------------
// Key paths and the key -> line locator

export type KeyPath = ReadonlyArray<string | number>;

/** `registries[1].upstream_auth.token`; keys that are not bare TOML keys are quoted. */
export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = /^[A-Za-z0-9_-]+$/.test(seg) ? seg : JSON.stringify(seg);
      out += out === '' ? key : `.${key}`;
    }
  }
  return out;
}

const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;

/**
 * Maps key paths to the line they are written on. A light scanner over text the TOML parser has
 * already accepted: table headers, array tables (counted per array, so the second `[[registries]]`
 * is `registries[1]`), dotted keys, arrays and inline tables (elements map to their own lines).
 * It is best effort: a path it cannot place falls back to its nearest placed parent.
 */
export class TomlLocator {
  private readonly lines = new Map<string, number>();
  private readonly lineStarts: number[] = [0];
  private readonly arrayTables = new Map<string, number>();
  private i = 0;

  constructor(private readonly text: string) {
    for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) this.lineStarts.push(p + 1);
    try {
      this.scanDocument();
    } catch {
      // Best effort by design: an unplaced key still gets its parent's line.
    }
  }

  /** The line of `path`, or of its nearest ancestor that is written in the file. */
  lineOf(path: KeyPath): number | undefined {
    for (let n = path.length; n > 0; n--) {
      const line = this.lines.get(formatKeyPath(path.slice(0, n)));
      if (line !== undefined) return line;
    }
    return undefined;
  }

  private lineAt(pos: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  private mark(path: KeyPath, pos: number): void {
    const key = formatKeyPath(path);
    if (!this.lines.has(key)) this.lines.set(key, this.lineAt(pos));
  }

  private get ch(): string | undefined {
    return this.text[this.i];
  }

  private scanDocument(): void {
    let table: KeyPath = [];
    while (this.skipBlank(), this.i < this.text.length) {
      const start = this.i;
      if (this.text.startsWith('[[', this.i)) {
        this.i += 2;
        table = this.header(this.readKey(), true, start);
      } else if (this.ch === '[') {
        this.i += 1;
        table = this.header(this.readKey(), false, start);
      } else {
        const path = [...table];
        for (const k of this.readKey()) {
          path.push(k);
          this.mark(path, start);
        }
        this.skipSpaces();
        if (this.ch === '=') this.i++;
        this.skipSpaces();
        this.skipValue(path);
      }
      this.skipToLineEnd();
      if (this.i === start) this.i++;
    }
  }

  /** Resolves a header's dotted key, indexing every array table on the way to its latest element. */
  private header(keys: string[], isArrayTable: boolean, pos: number): KeyPath {
    const out: Array<string | number> = [];
    keys.forEach((k, idx) => {
      out.push(k);
      const arrayKey = formatKeyPath(out);
      if (isArrayTable && idx === keys.length - 1) {
        const count = this.arrayTables.get(arrayKey) ?? 0;
        this.arrayTables.set(arrayKey, count + 1);
        this.mark(out, pos);
        out.push(count);
      } else {
        const count = this.arrayTables.get(arrayKey);
        if (count !== undefined) out.push(count - 1);
      }
      this.mark(out, pos);
    });
    return out;
  }

  private readKey(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipSpaces();
      if (this.ch === '"') parts.push(this.readBasicString());
      else if (this.ch === "'") parts.push(this.readLiteralString());
      else {
        const s = this.i;
        while (this.i < this.text.length && BARE_KEY_CHAR.test(this.text[this.i] ?? '')) this.i++;
        if (this.i === s) break;
        parts.push(this.text.slice(s, this.i));
      }
      this.skipSpaces();
      if (this.ch !== '.') break;
      this.i++;
    }
    return parts;
  }

  private readBasicString(): string {
    const start = ++this.i;
    while (this.i < this.text.length && this.ch !== '"' && this.ch !== '\n') this.i += this.ch === '\\' ? 2 : 1;
    const raw = this.text.slice(start, this.i);
    this.i++;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return raw; // a TOML-only escape (\U........): the raw form is close enough for locating
    }
  }

  private readLiteralString(): string {
    const start = ++this.i;
    const end = this.text.indexOf("'", start);
    this.i = end === -1 ? this.text.length : end + 1;
    return this.text.slice(start, end === -1 ? undefined : end);
  }

  private skipValue(path: KeyPath): void {
    if (this.text.startsWith('"""', this.i)) this.skipMultiline('"""');
    else if (this.text.startsWith("'''", this.i)) this.skipMultiline("'''");
    else if (this.ch === '"') this.readBasicString();
    else if (this.ch === "'") this.readLiteralString();
    else if (this.ch === '[') this.skipArray(path);
    else if (this.ch === '{') this.skipInlineTable(path);
    else while (this.i < this.text.length && !',]}#\r\n'.includes(this.ch ?? '')) this.i++;
  }

  private skipMultiline(delim: string): void {
    this.i += 3;
    while (this.i < this.text.length) {
      if (delim === '"""' && this.ch === '\\') this.i += 2;
      else if (this.text.startsWith(delim, this.i)) {
        this.i += 3;
        // A closing delimiter may be preceded by up to two quotes that belong to the content.
        for (let extra = 0; extra < 2 && this.ch === delim[0]; extra++) this.i++;
        return;
      } else this.i++;
    }
  }

  private skipArray(path: KeyPath): void {
    this.i++;
    for (let idx = 0; this.i < this.text.length; idx++) {
      this.skipBlank();
      if (this.ch === ']') break;
      const element = [...path, idx];
      this.mark(element, this.i);
      this.skipValue(element);
      this.skipBlank();
      if (this.ch !== ',') break;
      this.i++;
    }
    if (this.ch === ']') this.i++;
  }

  private skipInlineTable(path: KeyPath): void {
    this.i++;
    while (this.i < this.text.length) {
      this.skipBlank();
      if (this.ch === '}') break;
      const start = this.i;
      const keys = this.readKey();
      if (keys.length === 0) return;
      const p = [...path];
      for (const k of keys) {
        p.push(k);
        this.mark(p, start);
      }
      this.skipSpaces();
      if (this.ch === '=') this.i++;
      this.skipSpaces();
      this.skipValue(p);
      this.skipBlank();
      if (this.ch !== ',') break;
      this.i++;
    }
    if (this.ch === '}') this.i++;
  }

  private skipSpaces(): void {
    while (this.ch === ' ' || this.ch === '\t') this.i++;
  }

  /** Spaces, newlines and comments. */
  private skipBlank(): void {
    for (;;) {
      const c = this.ch;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.i++;
      else if (c === '#') this.skipComment();
      else return;
    }
  }

  private skipComment(): void {
    const nl = this.text.indexOf('\n', this.i);
    this.i = nl === -1 ? this.text.length : nl;
  }

  private skipToLineEnd(): void {
    this.skipSpaces();
    if (this.ch === '#' || (this.ch !== '\n' && this.ch !== '\r')) this.skipComment();
  }
}

// ---------------------------------------------------------------------------------------------
// Collecting issues

class Issues {
  private readonly list: ConfigIssue[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly locator: TomlLocator | undefined,
  ) {}

  add(path: KeyPath, message: string): void {
    const key = formatKeyPath(path);
    if (this.seen.has(`${key}\0${message}`)) return;
    this.seen.add(`${key}\0${message}`);
    this.list.push({ key: key === '' ? undefined : key, line: this.locator?.lineOf(path), message });
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    // Stable sort by line; issues without a line (nothing written in the file) go last.
    const sorted = [...this.list].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    const text = sorted.map((i) => this.render(i)).join('\n');
    const first = sorted[0];
    throw new ConfigError(text, { file: this.file, key: first?.key, line: first?.line, issues: sorted });
  }

  private render(issue: ConfigIssue): string {
    const where = issue.line === undefined ? this.file : `${this.file}:${issue.line}`;
    return issue.key === undefined ? `${where}: ${issue.message}` : `${where}: ${issue.key}: ${issue.message}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Schema validation and its messages

interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

type SchemaNode = Record<string, unknown>;

/**
 * Turns TypeBox errors into issues in TOML terms. `rootKeys` adds known keys at the root of `value`
 * for "did you mean" (registry extras sit next to the base registry keys).
 */
function reportSchemaErrors(issues: Issues, schema: TSchema, value: unknown, base: KeyPath, rootKeys: readonly string[] = []): void {
  for (const e of Value.Errors(schema, value) as unknown as SchemaError[]) {
    // The "schema is false" twin of an additionalProperties error, and the per-branch errors of an
    // anyOf, say the same thing worse than the error they accompany.
    if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) continue;
    if (e.schemaPath.includes('/anyOf/')) continue;
    const path = [...base, ...pointerToPath(e.instancePath, value)];
    const node = schemaAt(schema, e.schemaPath);
    if (e.keyword === 'required') {
      for (const key of e.params.requiredProperties as string[]) issues.add([...path, key], 'missing required key');
    } else if (e.keyword === 'additionalProperties') {
      const known = [...propertyNames(node), ...(e.instancePath === '' ? rootKeys : [])];
      for (const key of e.params.additionalProperties as string[]) issues.add([...path, key], unknownKey(key, known));
    } else {
      issues.add(path, describe(e, node, valueAt(value, e.instancePath)));
    }
  }
}

function describe(e: SchemaError, node: SchemaNode | undefined, got: unknown): string {
  const p = e.params;
  const gotText = `(got ${show(got)})`;
  switch (e.keyword) {
    case 'type':
      return `must be ${typeName(String(p.type))} ${gotText}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')} ${gotText}`;
    case 'anyOf': {
      const consts = Array.isArray(node?.anyOf) ? (node.anyOf as SchemaNode[]).map((b) => b.const) : [];
      if (consts.length > 0 && consts.every((c) => c !== undefined)) return `must be one of ${consts.map(String).join(', ')} ${gotText}`;
      return `does not match any allowed form ${gotText}`;
    }
    case 'const':
      return `must be ${show(p.allowedValue)} ${gotText}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)} ${gotText}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters ${gotText}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters ${gotText}`;
    case 'minItems':
      return p.limit === 1 ? 'must list at least one entry' : `must list at least ${String(p.limit)} entries`;
    case 'maxItems':
      return `must list at most ${String(p.limit)} entries`;
    case 'pattern':
      return `${patternHint(node, String(p.pattern))} ${gotText}`;
    case 'format':
      return `must be a valid ${String(p.format)} ${gotText}`;
    default:
      return `${e.message} ${gotText}`;
  }
}

/** Patterns read badly; a schema may say in words (`errorMessage`) or by example what it wants. */
function patternHint(node: SchemaNode | undefined, pattern: string): string {
  if (typeof node?.errorMessage === 'string') return node.errorMessage;
  const example = Array.isArray(node?.examples) ? node.examples[0] : undefined;
  return typeof example === 'string' ? `must look like ${example}` : `must match /${pattern}/`;
}

function typeName(t: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    array: 'an array',
    object: 'a table',
  };
  return names[t] ?? t;
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return 'a date';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object' && v !== null) return 'a table';
  return String(v);
}

function unknownKey(key: string, known: readonly string[], suffix = ''): string {
  const guess = closest(key, known);
  return `unknown key${suffix}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`;
}

/** The known key within edit distance 2, nearest first; else one the key is a prefix of (`metadata_ttl`). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined = key.length >= 4 ? known.find((k) => k.startsWith(key)) : undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON pointer into `root` as a key path, with array indices as numbers. */
function pointerToPath(pointer: string, root: unknown): KeyPath {
  const out: Array<string | number> = [];
  let cur: unknown = root;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(cur)) {
      out.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      out.push(seg);
      cur = isTable(cur) ? cur[seg] : undefined;
    }
  }
  return out;
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur: unknown = root;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else cur = isTable(cur) ? cur[seg] : undefined;
  }
  return cur;
}

function schemaAt(schema: TSchema, schemaPath: string): SchemaNode | undefined {
  let cur: unknown = schema;
  for (const seg of pointerSegments(schemaPath.replace(/^#/, ''))) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return typeof cur === 'object' && cur !== null ? (cur as SchemaNode) : undefined;
}

function propertyNames(node: SchemaNode | undefined): string[] {
  return isTable(node?.properties) ? Object.keys(node.properties) : [];
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

function registryType(doc: Record<string, unknown>, index: number): string | undefined {
  const reg: unknown = Array.isArray(doc.registries) ? doc.registries[index] : undefined;
  return isTable(reg) && typeof reg.type === 'string' ? reg.type : undefined;
}

/** Validates a registry's kind keys and applies the kind's defaults. An unknown type is the runtime's to report. */
function applyKindSchema(issues: Issues, index: number, type: string | undefined, extra: Record<string, unknown>, kindSchemas: KindSchemas | undefined): Record<string, unknown> {
  const base: KeyPath = ['registries', index];
  // Without a valid type the base schema already has an error to report; say nothing more.
  if (type === undefined) return extra;
  const schema = kindSchemas?.get(type);
  if (schema === undefined) {
    for (const key of Object.keys(extra)) issues.add([...base, key], unknownKey(key, BASE_REGISTRY_KEYS, ` for type "${type}"`));
    return extra;
  }
  const value = Value.Default(schema, extra);
  reportSchemaErrors(issues, schema, value, base, BASE_REGISTRY_KEYS);
  return isTable(value) ? value : extra;
}

/** Takes each plugin's section out of the document, applies its defaults and checks it in the same pass as the rest. */
function applyPluginSections(issues: Issues, doc: Record<string, unknown>, sections: readonly ConfigSection[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sections) {
    if (s.section in HubConfigSchema.properties || s.section in out) throw new ConfigError(`two owners claim the [${s.section}] section of hub.toml (a plugin's section must be its own)`, { key: s.section });
    const value = Value.Default(s.schema, doc[s.section]);
    delete doc[s.section];
    reportSchemaErrors(issues, s.schema, value, [s.section]);
    out[s.section] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// `*_env` secrets

/**
 * Every `<key>_env` names an environment variable whose value becomes `<key>`. Generic on purpose:
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
    if (key.endsWith('_env') && key.length > 4 && typeof value === 'string') {
      const target = key.slice(0, -4);
      if (node[target] !== undefined) issues.add([...path, key], `give ${target} or ${key}, not both`);
      else if (env[value] === undefined || env[value] === '') issues.add([...path, key], `environment variable ${value} is not set`);
      else node[target] = env[value];
    } else {
      resolveEnv(issues, env, value, [...path, key]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rules across keys

function checkCrossField(issues: Issues, c: HubConfig): void {
  checkServer(issues, c);
  checkDatabase(issues, c);
  checkStorage(issues, c);
  if (c.limits.rate_store === 'redis' && c.redis.url === undefined) issues.add(['limits', 'rate_store'], 'rate_store = "redis" needs [redis] url (or url_env)');
  if (c.redis.url !== undefined && !/^rediss?:\/\/[^\s]+$/.test(c.redis.url)) issues.add(['redis', 'url'], 'must be a redis:// or rediss:// URL');
  checkRegistries(issues, c);
  c.notifications.webhooks.forEach((w, i) => checkUrl(issues, ['notifications', 'webhooks', i, 'url'], w.url));
}

function checkServer(issues: Issues, c: HubConfig): void {
  const s = c.server;
  if ((s.tls_cert === undefined) !== (s.tls_key === undefined)) {
    const missing = s.tls_cert === undefined ? 'tls_cert' : 'tls_key';
    issues.add(['server', missing], 'tls_cert and tls_key go together: set both or neither');
  }
  if (s.public_url !== undefined) checkUrl(issues, ['server', 'public_url'], s.public_url);
  const port = Number(s.listen.slice(s.listen.lastIndexOf(':') + 1));
  if (port > 65535) issues.add(['server', 'listen'], `port must be 0..65535 (got ${port})`);
  for (const key of ['forbidden_networks', 'trusted_proxies'] as const)
    s[key].forEach((cidr, i) => {
      if (!isCidr(cidr)) issues.add(['server', key, i], `must be an IP address or CIDR range like 169.254.0.0/16 or fe80::/10 (got ${JSON.stringify(cidr)})`);
    });
  if (s.trust_proxy && s.trusted_proxies.length === 0) issues.add(['server', 'trusted_proxies'], 'trust_proxy needs at least one trusted proxy address or range (the proxy in front of hub)');
}

function checkDatabase(issues: Issues, c: HubConfig): void {
  const d = c.database;
  if (d.client === 'mysql' && d.url === undefined) issues.add(['database', 'url'], 'client = "mysql" needs url or url_env');
  if (d.client === 'sqlite' && d.url !== undefined) issues.add(['database', d.url_env === undefined ? 'url' : 'url_env'], 'only used with client = "mysql"');
}

const S3_KEYS = ['bucket', 'endpoint', 'region', 'prefix', 'access_key_id', 'access_key_id_env', 'secret_access_key', 'secret_access_key_env'] as const;

function checkStorage(issues: Issues, c: HubConfig): void {
  const s = c.storage;
  if (s.kind === 's3') {
    if (s.bucket === undefined) issues.add(['storage', 'bucket'], 'kind = "s3" needs a bucket');
    if (s.endpoint !== undefined) checkUrl(issues, ['storage', 'endpoint'], s.endpoint);
    if ((s.access_key_id === undefined) !== (s.secret_access_key === undefined)) {
      issues.add(['storage', s.access_key_id === undefined ? 'access_key_id' : 'secret_access_key'], 'access_key_id and secret_access_key go together: set both or neither');
    }
    return;
  }
  for (const key of S3_KEYS) {
    if (s[key] !== undefined) issues.add(['storage', key], 'only used with kind = "s3"');
  }
}

function checkRegistries(issues: Issues, c: HubConfig): void {
  checkUniqueNames(issues, c.registries, 'registries', 'registry');
  c.registries.forEach((r, i) => {
    const at = (...keys: string[]): KeyPath => ['registries', i, ...keys];
    if (r.mode === 'local') {
      // Silently ignoring an upstream would hide a mode typo'd into "local"; say so instead.
      if (r.upstream !== undefined) issues.add(at('upstream'), 'not used in local mode (remove it or change mode)');
      if (r.upstream_auth !== undefined) issues.add(at('upstream_auth'), 'not used in local mode (remove it or change mode)');
      return;
    }
    if (r.upstream === undefined) issues.add(at('upstream'), `missing required key: mode "${r.mode}" needs an upstream URL`);
    else checkUrl(issues, at('upstream'), r.upstream);
    if (r.upstream_auth !== undefined) checkUpstreamAuth(issues, at('upstream_auth'), r.upstream_auth);
    r.allowed_origins.forEach((o, j) => {
      if (!isOrigin(o)) issues.add(at('allowed_origins', String(j)), `must be an origin only, scheme://host[:port] (got ${JSON.stringify(o)})`);
    });
  });
}

function isOrigin(text: string): boolean {
  try {
    const u = new URL(text);
    return u.href === `${u.origin}/`;
  } catch {
    return false;
  }
}

function checkUpstreamAuth(issues: Issues, path: KeyPath, a: NonNullable<RegistryConfig['upstream_auth']>): void {
  const hasToken = a.token !== undefined;
  const hasUser = a.username !== undefined;
  const hasPassword = a.password !== undefined;
  if (hasToken && (hasUser || hasPassword)) issues.add(path, 'give either token or username with password, not both');
  else if (hasUser !== hasPassword) issues.add([...path, hasUser ? 'password' : 'username'], 'username and password go together (password may be password_env)');
  else if (!hasToken && !hasUser) issues.add(path, 'needs token (or token_env), or username with password (or password_env)');
}

function checkUniqueNames(issues: Issues, items: ReadonlyArray<{ name: string }>, section: string, what: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name)) issues.add([section, i, 'name'], `duplicate ${what} name ${JSON.stringify(item.name)}`);
    seen.add(item.name);
  });
}

function checkUrl(issues: Issues, path: KeyPath, url: string): void {
  if (!URL.canParse(url)) issues.add(path, `is not a valid URL (got ${JSON.stringify(url)})`);
}

/** An address or a CIDR range; a bare address is a single host, as the redirect guard reads it. */
function isCidr(text: string): boolean {
  const m = /^([^/]+)(?:\/([0-9]{1,3}))?$/.exec(text);
  if (m === null) return false;
  const family = isIP(m[1] ?? '');
  return family !== 0 && Number(m[2] ?? 0) <= (family === 4 ? 32 : 128);
}

// ---------------------------------------------------------------------------------------------
// Normalising

function normalise(c: HubConfig, baseDir: string): void {
  if (c.server.public_url !== undefined) c.server.public_url = stripTrailingSlashes(c.server.public_url);
  for (const r of c.registries) {
    if (r.upstream !== undefined) r.upstream = stripTrailingSlashes(r.upstream);
  }
  if (c.server.tls_cert !== undefined) c.server.tls_cert = resolvePath(baseDir, c.server.tls_cert);
  if (c.server.tls_key !== undefined) c.server.tls_key = resolvePath(baseDir, c.server.tls_key);
  c.database.filename = resolvePath(baseDir, c.database.filename);
  c.storage.path = resolvePath(baseDir, c.storage.path);
  if (c.auth.admin_token_sha256 !== undefined) c.auth.admin_token_sha256 = c.auth.admin_token_sha256.toLowerCase();
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** SQLite's `:memory:` and `file:` URIs are not paths and stay as written. */
function resolvePath(baseDir: string, p: string): string {
  if (p === ':memory:' || p.startsWith('file:') || isAbsolute(p)) return p;
  return resolve(baseDir, p);
}
