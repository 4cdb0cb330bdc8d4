import { Type } from 'typebox';
import { errors } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '@hub/admin-kit';
import type { FeedRunner } from '../feeds/feed-runner.js';

const time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const count = Type.Integer({ minimum: 0 });
const strict = { additionalProperties: false } as const;

const FeedState = Type.Object(
  {
    name: Type.String(),
    source: Type.String({ description: 'The flag source its flags carry (`feed:<name>`).' }),
    url: Type.Optional(Type.String()),
    directory: Type.Optional(Type.String()),
    interval_secs: count,
    effect: Type.String(),
    healthy: Type.Boolean({ description: 'False since a pull failed; the flags of the last good pull stay.' }),
    problem: Type.Union([Type.String(), Type.Null()], { description: 'Why the last pull failed.' }),
    last_pull_at: time,
    last_success_at: time,
    last_change_at: time,
    next_pull_at: time,
    etag: Type.Union([Type.String(), Type.Null()]),
    records: Type.Integer({ minimum: 0, description: 'OSV records the last good pull read.' }),
    skipped: Type.Integer({
      minimum: 0,
      description: 'Records (or parts) the last good pull could not turn into flags.',
    }),
    failures: Type.Integer({ minimum: 0, description: 'Failed pulls since the last good one.' }),
    flags: Type.Integer({ minimum: 0, description: 'Active flags this feed raised.' }),
  },
  strict,
);

export const FeedList = Type.Object({ feeds: Type.Array(FeedState) }, strict);
export const PullAnswer = Type.Object(
  { outcome: Type.Enum(['updated', 'not_modified', 'failed']), problem: Type.Optional(Type.String()), feed: FeedState },
  { ...strict, description: '`failed` keeps the last good flags; `problem` says why.' },
);

export const feedAdminRoutes = (runner: FeedRunner): AdminRoute[] => [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/advisory-feeds',
    permission: 'system:read',
    action: 'advisory_feed_list',
    summary: 'The [[advisory_feeds]] hub pulls, with the state of their last pull',
    response: FeedList,
    async handle({ ctx }) {
      ctx.body = { feeds: await runner.states() };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/advisory-feeds/:name/pull',
    permission: 'system:write',
    action: 'advisory_feed_pull',
    summary: 'Pull an advisory feed now (409 while another replica pulls it)',
    response: PullAnswer,
    async handle({ ctx, params, audit }) {
      const name = String(params.name);
      if (!runner.has(name)) throw errors.notFound(`no advisory feed named "${name.slice(0, 64)}"`);
      const r = await runner.pull(name);
      if (r.outcome === 'busy')
        throw errors.conflict(`advisory feed ${name} is being pulled by another replica; try again when it is done`);
      audit.detail = `${name}: ${r.outcome}${r.problem ? `: ${r.problem}` : ''}`.slice(0, 1000);
      ctx.body = {
        outcome: r.outcome,
        ...(r.problem ? { problem: r.problem } : {}),
        feed: (await runner.states()).find((f) => f.name === name)!,
      };
    },
  }),
];
