import http from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import npm from '@hub/kind-npm';
import ipBlocks from '@hub/ip-blocks';
import admin from '../src/index.js';

/** The npm kind's fixture registry: hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0 (depends on hubdep), @hubtest/scoped 1.0.0. */
export const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

export interface AdminSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/npm` */
  base: string;
  /** A JSON call to the admin API (or anything else) with the bootstrap admin token unless told otherwise. */
  api(method: string, path: string, o?: ApiOptions): Promise<ApiResponse>;
}

export interface ApiOptions {
  /** null: no Authorization header. Default: the bootstrap admin token. */
  token?: string | null;
  body?: unknown;
  /** A raw body sent as is (with its own content type). */
  raw?: { contentType?: string; data: Buffer | string };
  headers?: Record<string, string>;
  /** Source address on loopback (127.0.0.2, ...), to be another client IP. */
  localAddress?: string;
}

export interface ApiResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One HTTP request on loopback with full control of headers, body and source address. */
export function request(
  url: string,
  method: string,
  o: ApiOptions & { defaultToken?: string } = {},
): Promise<ApiResponse> {
  const u = new URL(url);
  const headers: Record<string, string> = { ...o.headers };
  const token = o.token === undefined ? o.defaultToken : o.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let data: Buffer | undefined;
  if (o.raw) {
    data = Buffer.from(o.raw.data);
    if (o.raw.contentType) headers['content-type'] = o.raw.contentType;
  } else if (o.body !== undefined) {
    data = Buffer.from(JSON.stringify(o.body));
    headers['content-type'] = 'application/json';
  }
  if (data) headers['content-length'] = String(data.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method,
        headers,
        localAddress: o.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** A fixture npm upstream and a hub with the admin and IP-block plugins and one npm registry named `npm`. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config' | 'mysqlUrl'>> & {
    registries?: (upstream: string) => TestHubOptions['registries'];
  } = {},
): Promise<AdminSetup> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, admin, ipBlocks],
    registries: opts.registries?.(upstream.url) ?? [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
    ],
    config: opts.config,
    mysqlUrl: opts.mysqlUrl,
  });
  t.teardown(() => hub.close());
  return {
    ...hub,
    upstream,
    base: `${hub.url}/proxy/npm`,
    api: (method, path, o = {}) => request(`${hub.url}${path}`, method, { ...o, defaultToken: hub.adminToken }),
  };
}

/** Every audit row written so far, oldest first (flushes the buffer first). */
export async function auditRows(s: TestHub): Promise<Record<string, any>[]> {
  await s.hub.audit.flush();
  return (await s.hub.db('access_events').orderBy('id').select()) as Record<string, any>[];
}
