import type { Io } from './io.js';

export type Row = Record<string, unknown>;

export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

// C0 and C1 controls (terminal escapes), and the bidirectional overrides that can make text read
// differently from what it is.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from the server made safe for a terminal: the audit log holds what clients sent (package
 * names from request paths), and an escape sequence in it must not reach an administrator's
 * terminal. Line breaks and tabs become spaces; other controls are shown as \u escapes.
 */
export function printable(s: string): string {
  return s
    .replace(/[\r\n\t]+/g, ' ')
    .replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A cell as text: null and undefined are "-", arrays are comma-joined, objects are JSON. */
export function cell(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (Array.isArray(v)) return v.length ? v.map(cell).join(',') : '-';
  if (typeof v === 'object') return printable(JSON.stringify(v));
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return printable(String(v));
}

export interface Column {
  header: string;
  /** Row members tried in order; the first present one is shown. */
  keys: string[];
}

/** The first present member of `keys`. */
export function pick(row: Row, keys: readonly string[]): unknown {
  for (const k of keys) if (row[k] !== undefined && row[k] !== null) return row[k];
  return undefined;
}

/** Left-aligned columns separated by two spaces, with a header line. */
export function table(io: Io, columns: Column[], rows: Row[]): void {
  const lines = [columns.map((c) => c.header), ...rows.map((r) => columns.map((c) => cell(pick(r, c.keys))))];
  const widths = columns.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  for (const l of lines) io.out(`${l.map((s, i) => (i === l.length - 1 ? s : s.padEnd(widths[i]!))).join('  ')}\n`);
}

/** The rows of a list answer: the answer itself when it is an array, else its member `key`. */
export function rowsOf(answer: unknown, key: string): Row[] {
  if (Array.isArray(answer)) return answer as Row[];
  const v = (answer as Row | null)?.[key];
  return Array.isArray(v) ? (v as Row[]) : [];
}

/** "npm lodash@4.17.21", "npm lodash" or "apt repo pool/main/x.deb" (path kinds). */
export function coordinate(registry: unknown, name: unknown, version?: unknown, path?: unknown): string {
  const v = version ?? undefined;
  if (path) return printable(`${String(registry)} ${String(name)} ${String(path)}`);
  return printable(`${String(registry)} ${String(name)}${v ? `@${String(v)}` : ''}`);
}
