/**
 * GONOSUMDB/GOPRIVATE matching (cmd/go's module.MatchPrefixPatterns): a pattern matches when its
 * elements, as path.Match globs (`*`, `?`, `[...]` classes not supported), match the leading elements of
 * the module path.
 */
const globElement = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );

export function matchesPrefixPattern(patterns: readonly string[], module: string): boolean {
  const elements = module.split('/');
  return patterns.some((p) => {
    const parts = p.replace(/\/+$/, '').split('/');
    return (
      parts.length > 0 &&
      parts[0] !== '' &&
      parts.length <= elements.length &&
      parts.every((part, i) => globElement(part).test(elements[i]!))
    );
  });
}
