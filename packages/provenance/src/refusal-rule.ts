import type { RefusalRule } from '@hub/runtime';
import type { ProvenanceRule } from './config.js';
import type { Checker } from './checker.js';
import { patternMatcher, withoutScheme } from './glob.js';

interface CompiledRule {
  registry: (s: string) => boolean;
  packages: (s: string) => boolean;
  source: ((s: string) => boolean) | null;
  sourceText: string;
}

/**
 * `[[provenance.rules]]` with `require = true`: a version without valid provenance (or built from another
 * source than `source` allows) is refused, 403 `package_blocked` "provenance required: <why>". The first
 * request for a version waits for its check; the stored result answers every later one from memory.
 */
export function provenanceRule(
  rules: readonly ProvenanceRule[],
  checker: Checker,
  denied: (registry: string) => void = () => {},
): RefusalRule {
  const compiled: CompiledRule[] = rules
    .filter((r) => r.require)
    .map((r) => ({
      registry: patternMatcher([r.registry]),
      packages: patternMatcher(r.packages),
      source: r.source.length ? patternMatcher(r.source, true) : null,
      sourceText: r.source.join(', '),
    }));
  // No promise for a coordinate no rule applies to: most hits.
  return (registry, c) => {
    if (c.version === undefined || compiled.length === 0) return null;
    const applying = compiled.filter((r) => r.registry(registry) && r.packages(c.name));
    return applying.length === 0 ? null : requireProvenance(registry, c.name, c.version, applying);
  };

  async function requireProvenance(
    registry: string,
    name: string,
    version: string,
    applying: CompiledRule[],
  ): Promise<string | null> {
    const refuse = (why: string) => {
      denied(registry);
      return `${name} ${version} is refused: provenance required: ${why}`;
    };
    if (!checker.attests(registry))
      return refuse(
        `registry ${registry} has no upstream that attests provenance (its kind has no provenance hook, or it has no upstream)`,
      );
    let fact;
    try {
      fact = await checker.check(registry, name, version);
    } catch (e) {
      // Not stored: the next request asks again.
      return refuse(`the upstream's attestations could not be read (${(e as Error).message})`);
    }
    if (fact.status !== 'verified') return refuse(fact.reason ?? fact.status);
    const source = fact.sourceRepository ? withoutScheme(fact.sourceRepository) : null;
    for (const r of applying) {
      if (!r.source) continue;
      if (source === null) return refuse('the signing certificate names no source repository');
      if (!r.source(source)) return refuse(`built from ${source}, which is not ${r.sourceText}`);
    }
    return null;
  }
}
