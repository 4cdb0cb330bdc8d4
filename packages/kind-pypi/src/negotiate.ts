/**
 * PEP 691 content negotiation: which form of a project page the client asked for. The Accept header is read by
 * the contract's `preferredTypes` (negotiator): q-values (`q=0` refuses a type), wildcards, the most specific
 * matching range setting a type's q, then the client's order. When the header names a type of its own (not
 * only `*\/*`), ties left after that go to JSON, then the v1 HTML, then `text/html`; when only `*\/*` is given (curl), or
 * nothing matches, the answer is `text/html`, the form every installer understands (PEP 691 lets a server
 * choose a default over 406).
 */
import { acceptedRanges, preferredTypes } from '@hub/contract';
import { HTML_V1_TYPE, JSON_TYPE } from './project-page.js';

export type Form = 'json' | 'html-v1' | 'html';

export const CONTENT_TYPE: Record<Form, string> = {
  json: JSON_TYPE,
  'html-v1': HTML_V1_TYPE,
  html: 'text/html; charset=utf-8',
};

const FORM_OF = new Map<string, Form>([
  [JSON_TYPE, 'json'],
  [HTML_V1_TYPE, 'html-v1'],
  ['text/html', 'html'],
]);
/** Among equals: JSON first when the client names types, HTML first when it only sends `*\/*`. */
const NAMED_ORDER = [...FORM_OF.keys()];
const WILDCARD_ORDER = [...NAMED_ORDER].reverse();

/** PEP 691's `latest` types are aliases of the v1 ones: one form, one q. */
const LATEST = /application\/vnd\.pypi\.simple\.latest\+/gi;

export function negotiate(accept: string | undefined): Form {
  if (!accept) return 'html';
  const header = accept.replace(LATEST, 'application/vnd.pypi.simple.v1+');
  const named = acceptedRanges(header).some((r) => r !== '*/*');
  const best = preferredTypes(header, named ? NAMED_ORDER : WILDCARD_ORDER)[0];
  return best ? FORM_OF.get(best)! : 'html';
}
