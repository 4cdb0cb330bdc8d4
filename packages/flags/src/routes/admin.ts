import type Koa from 'koa';
import { Type } from 'typebox';
import { AnalyseAnswer, ExposureAnswer, FlagList } from '../schemas.js';
import { errors } from '@hub/runtime';
import { adminRoute, checkCsvFormat, csvRecord, parseTime, queryValue, sendCsv, type AdminRoute, queryParameters } from '@hub/admin-kit';
import { analyseRegistry } from '../analysis.js';
import { EFFECTS } from '../effects.js';
import { EXPOSURE_COLUMNS, exposureCoverage, exposureRows, exposureStream, type ExposureFilter } from '../exposure.js';
import { flagJson, flagState, type FlagRow } from '../flag-json.js';
import type { VersionMatchers } from '../version-match.js';

const WHEN = new Set(['before-flag', 'after-flag', 'any']);

/** The exposure filters of SPEC 4.2: source, min_effect, when, registry, package, from. */
function exposureFilter(ctx: Koa.Context): ExposureFilter {
  const f: ExposureFilter = {};
  const minEffect = queryValue(ctx, 'min_effect');
  if (minEffect !== undefined && !(EFFECTS as readonly string[]).includes(minEffect)) throw errors.badRequest(`min_effect must be one of ${EFFECTS.join(', ')}`);
  const when = queryValue(ctx, 'when');
  if (when !== undefined && !WHEN.has(when)) throw errors.badRequest('when must be before-flag, after-flag or any');
  const from = queryValue(ctx, 'from');
  Object.assign(f, {
    source: queryValue(ctx, 'source'),
    minEffect,
    when: when as ExposureFilter['when'],
    registry: queryValue(ctx, 'registry'),
    package: queryValue(ctx, 'package'),
    from: from === undefined ? undefined : parseTime('from', from),
  });
  return f;
}

const AnalyseBody = Type.Object({ registry: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });

export const flagAdminRoutes = (sourceNames: readonly string[], ranges: VersionMatchers): AdminRoute[] => [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/exposure/analyse',
    permission: 'system:write',
    action: 'exposure_analyse',
    summary: 'Read the dependencies of held artifacts (for dependents in the exposure report)',
    response: AnalyseAnswer,
    body: AnalyseBody,
    async handle({ ctx, hub, body, registry, may }) {
      // Without a registry named: every registry the caller may act on (a registry-scoped deny leaves it out).
      const names = body.registry !== undefined ? [registry(body.registry).name] : hub.registries.map((r) => r.name).filter((name) => may({ registry: name }));
      const analyses = [];
      for (const name of names) {
        const a = await analyseRegistry(hub, name, hub.log);
        if (a) analyses.push(a);
      }
      ctx.body = { analyses };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/flags',
    permission: 'system:read',
    action: 'flag_list',
    summary: 'List flags (active; include_dead=true adds lifted and expired ones)',
    query: queryParameters({ include_dead: 'true: lifted and expired flags too', source: 'a flag source', registry: 'a registry name' }),
    response: FlagList,
    async handle({ ctx, hub }) {
      const dead = queryValue(ctx, 'include_dead');
      if (dead !== undefined && dead !== 'true' && dead !== 'false') throw errors.badRequest('include_dead must be true or false');
      const q = hub.db('flags').orderBy('id');
      if (dead !== 'true') q.where({ state: 'active' });
      for (const key of ['source', 'registry'] as const) {
        const v = queryValue(ctx, key);
        if (v !== undefined) q.where({ [key]: v });
      }
      // Expired flags act as lifted: like tombstones, listed only with include_dead.
      const rows = (await q.select()) as FlagRow[];
      ctx.body = { flags: (dead === 'true' ? rows : rows.filter((f) => flagState(f) === 'active')).map(flagJson) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/exposure',
    permission: 'system:read',
    action: 'exposure',
    summary: 'Who fetched flagged versions, directly or through a dependent',
    response: ExposureAnswer,
    query: queryParameters({ source: 'a flag source', min_effect: 'the weakest effect included', when: 'before-flag, after-flag or any', registry: 'a registry name', package: 'a canonical package name', from: 'RFC 3339 time or date' }),
    async handle({ ctx, hub }) {
      const filter = exposureFilter(ctx);
      const rows = await exposureRows(hub.db, hub.services.accessLog, ranges, filter);
      ctx.body = { rows, coverage: await exposureCoverage(hub, sourceNames, filter.from) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/exposure/export',
    permission: 'system:read',
    action: 'exposure_export',
    query: queryParameters({ format: 'csv (the default)', source: 'a flag source', min_effect: 'the weakest effect included', when: 'before-flag, after-flag or any', registry: 'a registry name', package: 'a canonical package name', from: 'RFC 3339 time or date' }),
    produces: 'text/csv',
    async handle({ ctx, hub }) {
      checkCsvFormat(ctx);
      const filter = exposureFilter(ctx);
      // Streamed: flags are read a page at a time and each flag's rows written as they are made.
      async function* records() {
        yield csvRecord(EXPOSURE_COLUMNS);
        for await (const r of exposureStream(hub.db, hub.services.accessLog, ranges, filter)) yield csvRecord(EXPOSURE_COLUMNS.map((c) => r[c]));
      }
      sendCsv(ctx, 'exposure.csv', records());
    },
  }),
];
