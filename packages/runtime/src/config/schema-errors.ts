/** TypeBox's validation errors, said in TOML terms: the key path as written, what was expected, and "did you mean". */
import { createRequire } from 'node:module';
import type Levenshtein from 'fastest-levenshtein';
import type { TSchema } from 'typebox';
import type { TLocalizedValidationError } from 'typebox/error';
import { Value } from 'typebox/value';
import type { Issues } from './issues.js';
import { isTable, type KeyPath } from './toml-source.js';

// ---------------------------------------------------------------------------------------------
// Schema validation and its messages

type SchemaNode = Record<string, unknown>;

/**
 * Turns TypeBox errors into issues in TOML terms. `rootKeys` adds known keys at the root of `value`
 * for "did you mean" (registry extras sit next to the base registry keys).
 */
export function reportSchemaErrors(
  issues: Issues,
  schema: TSchema,
  value: unknown,
  base: KeyPath,
  rootKeys: readonly string[] = [],
): void {
  for (const e of Value.Errors(schema, value)) {
    // The "schema is false" twin of an additionalProperties error, and the per-branch errors of an
    // anyOf, say the same thing worse than the error they accompany.
    if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) continue;
    if (e.schemaPath.includes('/anyOf/')) continue;
    const at = resolvePointer(e.instancePath, value);
    const path = [...base, ...at.path];
    const node = schemaAt(schema, e.schemaPath);
    if (e.keyword === 'required') {
      for (const key of e.params.requiredProperties) issues.add([...path, key], 'missing required key');
    } else if (e.keyword === 'additionalProperties') {
      const known = [
        ...(isTable(node?.properties) ? Object.keys(node.properties) : []),
        ...(e.instancePath === '' ? rootKeys : []),
      ];
      for (const key of e.params.additionalProperties) issues.add([...path, key], unknownKey(key, known));
    } else {
      issues.add(path, describe(e, node, at.value));
    }
  }
}

function describe(e: TLocalizedValidationError, node: SchemaNode | undefined, got: unknown): string {
  const gotText = `(got ${show(got)})`;
  switch (e.keyword) {
    case 'type':
      return `must be ${TYPE_NAMES[String(e.params.type)] ?? String(e.params.type)} ${gotText}`;
    case 'enum':
      return `must be one of ${e.params.allowedValues.map(String).join(', ')} ${gotText}`;
    case 'anyOf': {
      const consts = Array.isArray(node?.anyOf) ? (node.anyOf as SchemaNode[]).map((b) => b.const) : [];
      if (consts.length > 0 && consts.every((c) => c !== undefined))
        return `must be one of ${consts.map(String).join(', ')} ${gotText}`;
      return `does not match any allowed form ${gotText}`;
    }
    case 'const':
      return `must be ${show(e.params.allowedValue)} ${gotText}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(e.params.comparison)} ${String(e.params.limit)} ${gotText}`;
    case 'minLength':
      return e.params.limit === 1
        ? 'must not be empty'
        : `must be at least ${String(e.params.limit)} characters ${gotText}`;
    case 'maxLength':
      return `must be at most ${String(e.params.limit)} characters ${gotText}`;
    case 'minItems':
      return e.params.limit === 1
        ? 'must list at least one entry'
        : `must list at least ${String(e.params.limit)} entries`;
    case 'maxItems':
      return `must list at most ${String(e.params.limit)} entries`;
    case 'pattern':
      return `${patternHint(node, String(e.params.pattern))} ${gotText}`;
    case 'format':
      return `must be a valid ${String(e.params.format)} ${gotText}`;
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

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'a table',
};

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return 'a date';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object' && v !== null) return 'a table';
  return String(v);
}

export function unknownKey(key: string, known: readonly string[], suffix = ''): string {
  const guess = closest(key, known);
  return `unknown key${suffix}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`;
}

// The edit distance is loaded with the first unknown key, not when hub starts: its module holds a 256 KiB table
// (issue 32, idle RSS).
const require = createRequire(import.meta.url);
let levenshtein: typeof Levenshtein | undefined;

/** The known key within edit distance 2, nearest first; else one the key is a prefix of (`metadata_ttl`). */
function closest(key: string, known: readonly string[]): string | undefined {
  const { distance } = (levenshtein ??= require('fastest-levenshtein') as typeof Levenshtein);
  let best: string | undefined = key.length >= 4 ? known.find((k) => k.startsWith(key)) : undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = distance(key, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON pointer into `root`: the key path it names (array indices as numbers) and the value there. */
function resolvePointer(pointer: string, root: unknown): { path: KeyPath; value: unknown } {
  const path: Array<string | number> = [];
  let value: unknown = root;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(value)) {
      path.push(Number(seg));
      value = value[Number(seg)];
    } else {
      path.push(seg);
      value = isTable(value) ? value[seg] : undefined;
    }
  }
  return { path, value };
}

function schemaAt(schema: TSchema, schemaPath: string): SchemaNode | undefined {
  let cur: unknown = schema;
  for (const seg of pointerSegments(schemaPath.replace(/^#/, ''))) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return typeof cur === 'object' && cur !== null ? (cur as SchemaNode) : undefined;
}
