/** Parsing the structured formats (JSON, YAML, TOML) with hostile input in mind: every failure is a LockfileError. */
import { createRequire } from 'node:module';
import { parse as parseToml } from 'smol-toml';
import type Yaml from 'yaml';
import { LockfileError } from '../entry.js';

// The YAML parser is loaded with the first YAML lockfile (pnpm, yarn berry), not when hub starts (issue 32, idle RSS).
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

/** Deeper than any lockfile nests; a deeper document is refused before it is walked. */
export const MAX_DEPTH = 64;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function depthWithin(v: unknown, limit: number): boolean {
  // Iterative, so a hostile nesting cannot overflow the stack here.
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > limit) return false;
    for (const c of Object.values(x)) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return true;
}

function guarded<T>(what: string, parse: () => T): T {
  let v: T;
  try {
    v = parse();
  } catch (e) {
    // RangeError: a nesting deep enough to exhaust the parser's stack.
    const why = e instanceof RangeError ? 'it nests too deeply' : (e as Error).message.split('\n')[0]!.slice(0, 200);
    throw new LockfileError(`not valid ${what}: ${why}`);
  }
  if (!depthWithin(v, MAX_DEPTH)) throw new LockfileError(`the ${what} document nests deeper than ${MAX_DEPTH} levels`);
  return v;
}

export const parseJson = (text: string): unknown => guarded('JSON', () => JSON.parse(text) as unknown);

export const parseTomlText = (text: string): unknown => guarded('TOML', () => parseToml(text, { maxDepth: MAX_DEPTH }));

/** YAML without custom tags, with aliases capped (a "billion laughs" document expands to nothing). */
export const parseYaml = (text: string): unknown =>
  guarded('YAML', () => {
    const doc = (yaml ??= require('yaml') as typeof Yaml).parseDocument(text, {
      uniqueKeys: false,
      schema: 'core',
      prettyErrors: false,
    });
    if (doc.errors.length) throw new Error(doc.errors[0]!.message);
    return doc.toJS({ maxAliasCount: 100 }) as unknown;
  });

/** A string field, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
