import { Type } from 'typebox';
import { errors } from '@hub/runtime';
import { adminRoute, iso, queryInt, queryParameters, queryValue, type AdminRoute } from '@hub/admin-kit';
import { OUTBOX_STATES, type Outbox, type OutboxRow, type OutboxState } from './outbox.js';

const strict = { additionalProperties: false } as const;
const time = Type.String({ format: 'date-time', description: 'RFC 3339 UTC.' });
const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const DeliveryPage = Type.Object(
  {
    deliveries: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ minimum: 1 }),
          event_id: Type.Integer({
            minimum: 1,
            description: 'The event (GET /api/v1/admin/events), and the X-Hub-Delivery header.',
          }),
          event_type: Type.String(),
          webhook: Type.String({ description: "The webhook's URL, without its query string or credentials." }),
          state: Type.Enum([...OUTBOX_STATES], {
            description:
              'pending: not delivered yet (due at next_attempt_at); delivered: the receiver answered 2xx; dead: every attempt failed.',
          }),
          attempts: Type.Integer({ minimum: 0 }),
          next_attempt_at: nullable(time),
          last_error: nullable(Type.String({ description: 'Why the last attempt failed.' })),
          created_at: time,
          finished_at: nullable(time),
        },
        strict,
      ),
      { description: 'Newest first.' },
    ),
    next_cursor: Type.Union([Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Null()], {
      description: 'Pass as `cursor` for the next (older) page; null on the last page.',
    }),
  },
  strict,
);

/** A webhook URL may carry a token in its query or user part: listed without them. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

const deliveryJson = (r: OutboxRow) => ({
  id: r.id,
  event_id: r.event_id,
  event_type: r.event_type,
  webhook: shownUrl(r.hook_url),
  state: r.state,
  attempts: r.attempts,
  next_attempt_at: r.state === 'pending' ? iso(r.next_attempt_at) : null,
  last_error: r.last_error,
  created_at: iso(r.created_at)!,
  finished_at: iso(r.finished_at),
});

export const deliveryRoutes = (outbox: Outbox): AdminRoute[] => [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/webhooks/deliveries',
    permission: 'system:read',
    action: 'webhook_delivery_list',
    summary: 'List webhook deliveries (pending, delivered, dead-lettered), newest first (paged by cursor)',
    response: DeliveryPage,
    query: queryParameters({
      state: 'pending, delivered or dead',
      cursor: 'next_cursor of the previous page',
      limit: '1 to 1000 (default 100)',
    }),
    async handle({ ctx }) {
      const state = queryValue(ctx, 'state');
      const cursor = queryValue(ctx, 'cursor');
      const limit = queryInt(ctx, 'limit', 100, 1000);
      if (state !== undefined && !(OUTBOX_STATES as readonly string[]).includes(state))
        throw errors.badRequest(`state must be one of ${OUTBOX_STATES.join(', ')}`);
      if (cursor !== undefined && !/^[1-9]\d{0,15}$/.test(cursor))
        throw errors.badRequest('cursor must be the next_cursor of an earlier page');
      const rows = await outbox.list({
        state: state as OutboxState | undefined,
        before: cursor === undefined ? undefined : Number(cursor),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      ctx.body = {
        deliveries: page.map(deliveryJson),
        next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
      };
    },
  }),
];
