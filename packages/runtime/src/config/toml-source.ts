/**
 * hub.toml as text: reading the file, parsing it (a syntax error becomes `file:line:column: ...`), and
 * finding the line a key path was written on, so every later error can name it.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { parseTOML, type AST } from 'toml-eslint-parser';
import { ConfigError } from './config-error.js';

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

export function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

// ---------------------------------------------------------------------------------------------
// Key paths and where they are written

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

/**
 * Maps key paths to the line they are written on, from toml-eslint-parser's syntax tree: table headers
 * (the second `[[registries]]` is `registries[1]`), dotted keys, array elements and inline tables.
 * A path not written in the file (a default) falls back to its nearest written parent.
 */
export class TomlLocator {
  private readonly lines = new Map<string, number>();

  constructor(text: string) {
    let program: AST.TOMLProgram;
    try {
      program = parseTOML(text);
    } catch {
      return; // smol-toml has reported the syntax error already; nothing to place.
    }
    for (const node of program.body[0].body) {
      if (node.type === 'TOMLKeyValue') this.keyValue(node, []);
      else {
        const path = node.resolvedKey;
        // The array itself (`registries`) is placed at its first `[[registries]]` header.
        path.forEach((_, n) => this.mark(path.slice(0, n + 1), node));
        for (const kv of node.body) this.keyValue(kv, path);
      }
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

  private mark(path: KeyPath, node: AST.TOMLNode): void {
    const key = formatKeyPath(path);
    if (!this.lines.has(key)) this.lines.set(key, node.loc.start.line);
  }

  private keyValue(kv: AST.TOMLKeyValue, base: KeyPath): void {
    const path = [...base];
    for (const k of kv.key.keys) {
      path.push(k.type === 'TOMLBare' ? k.name : k.value);
      this.mark(path, kv);
    }
    this.value(kv.value, path);
  }

  private value(v: AST.TOMLContentNode, path: KeyPath): void {
    if (v.type === 'TOMLArray')
      v.elements.forEach((e, i) => {
        this.mark([...path, i], e);
        this.value(e, [...path, i]);
      });
    else if (v.type === 'TOMLInlineTable') for (const kv of v.body) this.keyValue(kv, path);
  }
}
