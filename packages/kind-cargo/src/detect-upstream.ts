import { parse as parseToml } from 'smol-toml';
import type { DetectUpstream } from '@hub/contract';

/**
 * The source crates-io is replaced with (`[source.crates-io] replace-with = "x"`, `[source.x] registry
 * = "sparse+..."`), else the first `[registries.*]` with a sparse index. Only sparse indexes: hub
 * proxies the sparse protocol, not git indexes.
 */
export const detectUpstream: DetectUpstream = async ({ readHomeFile }) => {
  for (const file of ['config.toml', 'config']) {
    const text = await readHomeFile('.cargo', file);
    const url = text === null ? undefined : sparseIndex(text);
    if (url !== undefined) return { upstream: url, source: `~/.cargo/${file}` };
  }
  return null;
};

function sparseIndex(text: string): string | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch {
    return undefined;
  }
  const table = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const sparse = (v: unknown): string | undefined =>
    typeof v === 'string' && v.startsWith('sparse+') ? v.slice('sparse+'.length) : undefined;
  const sources = table(doc.source);
  const replacement = table(sources['crates-io'])['replace-with'];
  if (typeof replacement === 'string') {
    const url = sparse(table(sources[replacement]).registry);
    if (url !== undefined) return url;
  }
  for (const reg of Object.values(table(doc.registries))) {
    const url = sparse(table(reg).index);
    if (url !== undefined) return url;
  }
  return undefined;
}
