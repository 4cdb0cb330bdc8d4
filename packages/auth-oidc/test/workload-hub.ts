import type { Test } from 'tap';
import { startTestHub } from '@hub/testkit';
import npm from '@hub/kind-npm';
import publishing from '@hub/publishing';
import workload from '../src/workload/index.js';
import { startJwksIssuer } from './jwks-issuer.js';

/** A hub with an `internal` and an `other` local npm registry, and one workload identity (`web`) trusting a local issuer. */
export async function start(t: Test, over: Record<string, unknown> = {}, issuerOpts: { discovery?: boolean } = {}) {
  const issuer = await startJwksIssuer();
  t.teardown(() => issuer.close());
  const entry = {
    name: 'web',
    issuer: issuer.url,
    ...(issuerOpts.discovery === false ? { jwks_url: `${issuer.url}/jwks` } : {}),
    audience: 'hub',
    claims: { repository: 'acme/web', ref: ['refs/heads/main', 'refs/tags/v*'] },
    roles: ['publisher'],
    registries: ['internal'],
    ...over,
  };
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, publishing, workload],
    registries: [
      { name: 'internal', type: 'npm', mode: 'local' },
      { name: 'other', type: 'npm', mode: 'local' },
    ],
    config: { auth: { workload: [entry] } },
  });
  t.teardown(() => hub.close());
  const exchange = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${hub.url}/api/v1/auth/exchange`, {
      method: 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any, headers: res.headers };
  };
  const good = (claims: Record<string, unknown> = {}) =>
    issuer.sign({ repository: 'acme/web', ref: 'refs/heads/main', ...claims });
  const auditRows = async () =>
    (await hub.hub.services.accessLog.query({ actions: ['workload_exchange'] }, { limit: 50 })).reverse();
  return { hub, issuer, exchange, good, auditRows };
}
