/**
 * PEP 691 content negotiation: which form of a project page the client asked for. The Accept header
 * is read with q-values (`q=0` refuses a type) and wildcards; the most specific range that matches a
 * form sets its q. When only wildcards match (curl's `*\/*`) or nothing does, the answer is
 * `text/html`, the form every installer understands (PEP 691 lets a server choose a default over 406).
 */
import { HTML_V1_TYPE, JSON_TYPE } from './project-page.js';

export type Form = 'json' | 'html-v1' | 'html';

export const CONTENT_TYPE: Record<Form, string> = { json: JSON_TYPE, 'html-v1': HTML_V1_TYPE, html: 'text/html; charset=utf-8' };

const TYPES: ReadonlyArray<{ form: Form; types: readonly string[] }> = [
  { form: 'json', types: [JSON_TYPE, 'application/vnd.pypi.simple.latest+json'] },
  { form: 'html-v1', types: [HTML_V1_TYPE, 'application/vnd.pypi.simple.latest+html'] },
  { form: 'html', types: ['text/html'] },
];

interface Range {
  type: string;
  q: number;
}

/** At most this many ranges are read from one header. */
const MAX_RANGES = 32;

function ranges(accept: string): Range[] {
  const out: Range[] = [];
  for (const part of accept.split(',').slice(0, MAX_RANGES)) {
    const [type, ...params] = part.split(';').map((p) => p.trim());
    if (!type || !/^[a-z0-9!#$&^_.+*-]+\/[a-z0-9!#$&^_.+*-]+$/i.test(type)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/i.exec(p);
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    out.push({ type: type.toLowerCase(), q });
  }
  return out;
}

/** How specifically `range` matches `type`: 2 exact, 1 `major/*`, 0 `*\/*`, -1 not at all. */
function specificity(range: string, type: string): number {
  if (range === type) return 2;
  if (range === '*/*') return 0;
  if (range.endsWith('/*') && type.startsWith(range.slice(0, -1))) return 1;
  return -1;
}

export function negotiate(accept: string | undefined): Form {
  if (!accept) return 'html';
  const rs = ranges(accept);
  const matches = TYPES.map(({ form, types }) => {
    let match: { q: number; spec: number } | null = null;
    for (const t of types)
      for (const r of rs) {
        const spec = specificity(r.type, t);
        if (spec >= 0 && (!match || spec > match.spec)) match = { q: r.q, spec };
      }
    return { form, q: match?.q ?? 0, spec: match?.spec ?? -1 };
  });
  // Named (not wildcard) forms: the highest q, then the most specific, then JSON before HTML.
  const named = matches.filter((m) => m.q > 0 && m.spec > 0).sort((a, b) => b.q - a.q || b.spec - a.spec);
  if (named[0]) return named[0].form;
  // Only wildcards: HTML first, unless the client refused it.
  return [...matches].reverse().find((m) => m.q > 0)?.form ?? 'html';
}
