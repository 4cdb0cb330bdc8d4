import { errors } from '@hub/runtime';
import { adminRoute, type AdminRoute, queryInt, queryValue, queryParameters } from '@hub/admin-kit';
import { EventPage } from '../answer-schemas.js';

const TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** Notifications sent (packages/webhooks/README.md), newest first, paged by cursor: `{events, next_cursor}`. */
export const eventRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/events',
    permission: 'system:read',
    action: 'event_list',
    summary: 'List notifications sent, newest first (paged by cursor)',
    response: EventPage,
    query: queryParameters({
      type: 'an event type',
      registry: 'a registry name',
      cursor: 'next_cursor of the previous page',
      limit: '1 to 1000 (default 100)',
    }),
    async handle({ ctx, hub }) {
      const type = queryValue(ctx, 'type');
      const registry = queryValue(ctx, 'registry');
      const cursor = queryValue(ctx, 'cursor');
      const limit = queryInt(ctx, 'limit', 100, 1000);
      if (type !== undefined && !TYPE.test(type))
        throw errors.badRequest('type must be an event name like package_disappeared_upstream');
      if (cursor !== undefined && !/^[1-9]\d{0,15}$/.test(cursor))
        throw errors.badRequest('cursor must be the next_cursor of an earlier page');
      const rows = await hub.events.list({
        type,
        registry,
        before: cursor === undefined ? undefined : Number(cursor),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      ctx.body = {
        events: page.map(({ id, type, registry, created_at, data }) => ({ id, type, registry, created_at, data })),
        next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
      };
    },
  }),
];
