/**
 * hub.toml as text: reading the file, parsing it (a syntax error becomes `file:line:column: ...`), and
 * finding the line a key path was written on, so every later error can name it.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ConfigError } from './issues.js';

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
