import { MAX_VERSION_RANGE_CHARS, type RegistryKind } from '@hub/runtime';

export type VersionMatch = (version: string) => boolean;

/** Matchers kept at most; a push of this many distinct ranges is rare, and the memo then starts again. */
const MEMO_MAX = 10_000;

/**
 * Compiles flag ranges with the registry's kind, memoised by kind and range text so the request path
 * parses each range once: `*` matches everything; a kind without a `versionRange` hook takes `*` only
 * (exact versions come as `version`).
 */
export function createVersionMatchers(kindOf: (registry: string) => RegistryKind | undefined) {
  const memo = new Map<string, VersionMatch | string>();
  /** The matcher, or why the text is not a range of this registry's kind. */
  function compile(registry: string, text: string): VersionMatch | string {
    if (text === '*') return () => true;
    const kind = kindOf(registry);
    if (!kind) return `registry ${registry} is not configured`;
    const key = `${kind.id}\0${text}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let out: VersionMatch | string;
    if (text.length > MAX_VERSION_RANGE_CHARS) out = `at most ${MAX_VERSION_RANGE_CHARS} characters`;
    else if (!kind.versionRange) out = `registry type ${kind.id} takes "version" for one version, or version_range "*"`;
    else {
      const parsed = kind.versionRange(text);
      out = parsed.ok ? parsed.matches : parsed.reason;
    }
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(key, out);
    return out;
  }
  return {
    compile,
    /** One version in two spellings (PEP 440's `1.0` and `1.0.0`): the kind's canonicalVersion, else the text. */
    same(registry: string, a: string, b: string): boolean {
      if (a === b) return true;
      const canon = kindOf(registry)?.coordinate.canonicalVersion;
      return canon !== undefined && canon(a) === canon(b);
    },
    /** Does the range cover this version? An unparseable stored range (a kind changed its syntax) covers it: fail closed. */
    covers(registry: string, text: string, version: string): boolean {
      const m = compile(registry, text);
      return typeof m === 'string' ? true : m(version);
    },
  };
}
export type VersionMatchers = ReturnType<typeof createVersionMatchers>;
