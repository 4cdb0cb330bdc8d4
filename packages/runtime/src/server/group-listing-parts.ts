import type Koa from 'koa';
import { errors, type GroupPart, HubError, isHubError, readCapped, type Reply } from '@hub/contract';
import { type Answer, dispose } from './group-answer.js';
import type { RegistryRoutesDeps } from './registry-deps.js';

/**
 * The members' 200 answers, bodies read within the metadata byte cap; other answers are let go. A body too
 * large (or cut short) becomes that member's error in `answers`: its listing is left out like a failed one.
 */
export async function okParts(
  answers: Answer[],
  d: RegistryRoutesDeps,
): Promise<Array<GroupPart & { answer: Answer }>> {
  const cap = d.maxMetadataBytes ?? 64 * 1024 * 1024;
  const parts: Array<GroupPart & { answer: Answer }> = [];
  for (const [i, a] of answers.entries()) {
    if (!('reply' in a)) continue;
    if (a.reply.status !== 200) {
      dispose(a.reply);
      continue;
    }
    try {
      const body = await readBody(a.reply, cap, a.member.info.name);
      parts.push({
        member: a.member.info.name,
        mode: a.member.info.mode as GroupPart['mode'],
        status: 200,
        headers: a.reply.headers,
        body,
        answer: a,
      });
    } catch (e) {
      dispose(a.reply);
      answers[i] = {
        member: a.member,
        audit: a.audit,
        error: isHubError(e) ? e : errors.upstream(`registry "${a.member.info.name}"'s listing could not be read`),
      };
    }
  }
  return parts;
}

async function readBody(reply: Reply, cap: number, member: string): Promise<Buffer> {
  const tooLarge = () =>
    new HubError('upstream_error', `registry "${member}"'s listing exceeds ${cap} bytes ([limits] max_metadata_bytes)`);
  const b = reply.body;
  if (b === null) return Buffer.alloc(0);
  if (typeof b === 'string' || Buffer.isBuffer(b)) {
    const buf = Buffer.isBuffer(b) ? b : Buffer.from(b);
    if (buf.length > cap) throw tooLarge();
    return buf;
  }
  return readCapped(b, cap, tooLarge);
}

/** Request headers a member asked for a merged listing does not see: they are about the merged document. */
const FOR_THE_MERGE = new Set([
  'range',
  'if-range',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
]);

/** The request as a member of a merged listing sees it: without range and validator headers, with `query` if given. */
export function memberView(ctx: Koa.Context, query?: URLSearchParams): Koa.Context {
  const headers = Object.fromEntries(Object.entries(ctx.headers).filter(([k]) => !FOR_THE_MERGE.has(k.toLowerCase())));
  const view = Object.create(ctx) as Koa.Context;
  Object.defineProperty(view, 'headers', { value: headers });
  Object.defineProperty(view, 'header', { value: headers });
  if (query) Object.defineProperty(view, 'querystring', { value: query.toString() });
  return view;
}
