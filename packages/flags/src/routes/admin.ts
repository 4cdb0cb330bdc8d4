import type Koa from 'koa';
import { Type } from 'typebox';
import { AnalyseAnswer, ExposureAnswer, FlagList } from '../schemas.js';
import { errors, type PluginContext } from '@hub/runtime';
import {
  adminRoute,
  csvRecord,
  parseTime,
  queryInt,
  queryValue,
  sendCsv,
  type AdminRoute,
  queryParameters,
} from '@hub/admin-kit';
import { analyseRegistry } from '../analysis.js';
import { EFFECTS } from '../effects.js';
import {
  EXPOSURE_COLUMNS,
  EXPOSURE_DEPTH_DEFAULT,
  EXPOSURE_DEPTH_MAX,
  exposureStream,
  type ExposureFilter,
  type ExposureInputs,
} from '../exposure.js';
import { exposureCoverage } from '../exposure-coverage.js';
import { sendJsonLines, sendStreamedJson } from './streamed-json.js';
import { flagJson, flagState, type FlagRow } from '../flag-json.js';
import type { VersionMatchers } from '../version-match.js';

const WHEN = new Set(['before-flag', 'after-flag', 'any']);

/** The exposure filters of docs/openapi.json (source, min_effect, when, registry, package, from) and the walk's depth. */
function exposureFilter(ctx: Koa.Context): ExposureFilter {
  const f: ExposureFilter = {};
  const minEffect = queryValue(ctx, 'min_effect');
  if (minEffect !== undefined && !(EFFECTS as readonly string[]).includes(minEffect))
    throw errors.badRequest(`min_effect must be one of ${EFFECTS.join(', ')}`);
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
    depth: queryInt(ctx, 'depth', EXPOSURE_DEPTH_DEFAULT, EXPOSURE_DEPTH_MAX),
  });
  return f;
}

const EXPOSURE_QUERY = {
  source: 'a flag source',
  min_effect: 'the weakest effect included',
  when: 'before-flag, after-flag or any',
  registry: 'a registry name',
  package: 'a canonical package name',
  from: 'RFC 3339 time or date',
  depth: `dependency links followed from the flagged version: 1 to ${EXPOSURE_DEPTH_MAX}, default ${EXPOSURE_DEPTH_DEFAULT}`,
};

const inputsOf = (hub: PluginContext, ranges: VersionMatchers): ExposureInputs => ({
  db: hub.db,
  log: hub.services.accessLog,
  held: hub.services.held,
  ranges,
});

const AnalyseBody = Type.Object(
  { registry: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

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
      const names =
        body.registry !== undefined
          ? [registry(body.registry).name]
          : hub.registries.map((r) => r.name).filter((name) => may({ registry: name }));
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
    query: queryParameters({
      include_dead: 'true: lifted and expired flags too',
      source: 'a flag source',
      registry: 'a registry name',
    }),
    response: FlagList,
    async handle({ ctx, hub }) {
      const dead = queryValue(ctx, 'include_dead');
      if (dead !== undefined && dead !== 'true' && dead !== 'false')
        throw errors.badRequest('include_dead must be true or false');
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
    summary: 'Who fetched flagged versions, directly or through a chain of dependents (streamed)',
    response: ExposureAnswer,
    query: queryParameters(EXPOSURE_QUERY),
    async handle({ ctx, hub }) {
      const filter = exposureFilter(ctx);
      // Streamed as one JSON document of the same shape as before: rows as they are made, then the coverage.
      const truncated: string[] = [];
      const rows = exposureStream(inputsOf(hub, ranges), filter, (flag) =>
        truncated.push(`${flag.source}/${flag.external_id}`),
      );
      const coverage = async () => ({
        ...(await exposureCoverage(hub, sourceNames, filter.from)),
        depth: filter.depth!,
        walk_truncated: truncated,
      });
      await sendStreamedJson(ctx, 'rows', rows, 'coverage', coverage);
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/exposure/export',
    permission: 'system:read',
    action: 'exposure_export',
    query: queryParameters({
      format: 'csv (the default), or jsonl: one JSON row a line, with its chain',
      ...EXPOSURE_QUERY,
    }),
    produces: 'text/csv',
    async handle({ ctx, hub }) {
      const format = queryValue(ctx, 'format') ?? 'csv';
      if (format !== 'csv' && format !== 'jsonl') throw errors.badRequest('format must be csv or jsonl');
      const filter = exposureFilter(ctx);
      // Streamed: flags are read a page at a time and each flag's rows written as they are made.
      const rows = exposureStream(inputsOf(hub, ranges), filter);
      if (format === 'jsonl') return sendJsonLines(ctx, 'exposure.jsonl', rows);
      async function* records() {
        yield csvRecord(EXPOSURE_COLUMNS);
        for await (const r of rows) yield csvRecord(EXPOSURE_COLUMNS.map((c) => r[c]));
      }
      sendCsv(ctx, 'exposure.csv', records());
    },
  }),
];
