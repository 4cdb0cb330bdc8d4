import type { TSchema } from 'typebox';
import { VERSION, type PluginContext, type RouteDoc } from '@hub/runtime';

/** `{"error": {code, message, request_id}}` (docs/errors.md). */
const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
    },
  },
};

const ERRORS: Record<string, string> = {
  '400': 'Malformed input (bad_request)',
  '401': 'No token, or an unknown, expired or revoked one (unauthenticated)',
  '403': 'The token lacks the permission, or the user or address is blocked (forbidden, user_blocked, ip_blocked)',
  '404': 'Unknown registry, package or id (not_found)',
};

/** The JSON Schema of a typebox schema: typebox 1.x values are plain JSON Schema, so a JSON round-trip is the copy. */
const plain = (s: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(s)) as Record<string, unknown>;

/** `/a/:id/b` → `/a/{id}/b`, and the names of its parameters. */
export function openApiPath(path: string): { path: string; names: string[] } {
  const names: string[] = [];
  const out = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, n: string) => {
    names.push(n);
    return `{${n}}`;
  });
  return { path: out, names };
}

const tagOf = (path: string): string => /^\/api\/v1\/(?:admin\/)?([a-z-]+)/.exec(path)?.[1] ?? 'hub';

/** An operation id from the method and path: `get_admin_blocks_id`. */
export const operationId = (r: Pick<RouteDoc, 'method' | 'path'>): string =>
  `${r.method.toLowerCase()}_${r.path
    .replace(/^\/api\/v1\//, '')
    .replace(/[:/-]+/g, '_')
    .replace(/^_|_$/g, '')}`;

/**
 * The OpenAPI 3.1 document of the routes: paths, parameters, bodies and answers from the same typebox
 * schemas the routes validate with, so the document cannot drift from what the server checks.
 */
export function openApiDocument(routes: readonly RouteDoc[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const { path, names } = openApiPath(r.path);
    const paramProps = (r.params ? plain(r.params).properties : undefined) as Record<string, unknown> | undefined;
    const parameters: unknown[] = names.map((n) => ({
      name: n,
      in: 'path',
      required: true,
      schema: paramProps?.[n] ?? { type: 'string' },
    }));
    if (r.query) {
      const q = plain(r.query);
      const required = new Set((q.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((q.properties as Record<string, Record<string, unknown>>) ?? {}))
        parameters.push({
          name,
          in: 'query',
          required: required.has(name),
          schema,
          ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
        });
    }
    const status = String(r.status ?? 200);
    const content = r.produces
      ? { [r.produces]: { schema: { type: 'string' } } }
      : r.answers
        ? Object.fromEntries(Object.entries(r.answers).map(([type, schema]) => [type, { schema: plain(schema) }]))
        : { 'application/json': { schema: r.response ? plain(r.response) : { type: 'object' } } };
    const success = { description: 'OK', content };
    const responses: Record<string, unknown> = { [status]: success };
    for (const code of Object.keys(ERRORS)) responses[code] = { $ref: `#/components/responses/E${code}` };
    const op: Record<string, unknown> = {
      operationId: operationId(r),
      tags: [tagOf(r.path)],
      ...(r.summary ? { summary: r.summary } : {}),
      ...(r.permission ? { 'x-hub-permission': r.permission, security: [{ bearer: [] }] } : { security: [] }),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: plain(r.body) } } } }
        : {}),
      responses,
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hub admin API',
      version,
      description: 'The administration API of hub, generated from the typebox schemas its routes validate with.',
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: {
      schemas: { Error: ERROR_SCHEMA },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([code, description]) => [
          `E${code}`,
          { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A hub token (`hub token create`).' } },
    },
  };
}

/**
 * `GET /api/v1/openapi.json`: public, as it holds no data. Built at the first request, once every plugin
 * has mounted its routes (so audit's and flags' are in it too), then answered from the same text.
 */
export function mountOpenApiRoute(ctx: Pick<PluginContext, 'router' | 'adminRoutes'>): void {
  let text: string | undefined;
  ctx.router.get('/api/v1/openapi.json', (c) => {
    c.type = 'application/json';
    c.body = text ??= JSON.stringify(openApiDocument(ctx.adminRoutes.routes(), VERSION));
  });
}
