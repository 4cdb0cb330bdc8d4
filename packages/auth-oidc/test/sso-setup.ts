import type { Test } from 'tap';
import admin from '@hub/admin';
import consolePlugin from '@hub/console';
import { startTestHub } from '@hub/testkit';
import oidc from '../src/index.js';
import { startOpenIdProvider, type TestProvider } from './openid-provider.js';

/** A hub with the console and single sign-on through a real OpenID Provider on loopback. */
export async function startSso(t: Test, over: Record<string, unknown> = {}, opts: { deviceFlow?: boolean } = {}) {
  let hubUrl = '';
  const op: TestProvider = await startOpenIdProvider(() => [`${hubUrl}/console/sign-in/oidc/callback`], opts);
  t.teardown(() => op.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [admin, consolePlugin, oidc],
    registries: [],
    config: {
      auth: {
        oidc: {
          issuer: op.issuer,
          display_name: 'Acme SSO',
          client_id: op.clientId,
          client_secret_env: 'OIDC_SECRET',
          scopes: ['openid', 'profile', 'email', 'groups'],
          role_map: { 'hub-admins': 'admin', developers: ['reader', 'auditor'] },
          ...over,
        },
      },
    },
    env: { OIDC_SECRET: op.clientSecret },
  });
  hubUrl = hub.url;
  t.teardown(() => hub.close());
  const signIns = async () =>
    (await hub.hub.services.accessLog.query({ actions: ['console_sign_in'] }, { limit: 50 })).reverse();
  return { hub, op, signIns };
}

/** Cookies per origin, as a browser keeps them (enough for these flows: no paths, no domains). */
export class CookieJar {
  #jar = new Map<string, Map<string, string>>();
  header(url: string): string {
    return [...(this.#jar.get(new URL(url).origin) ?? new Map<string, string>())]
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  }
  take(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.#jar.get(origin) ?? new Map<string, string>();
    this.#jar.set(origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }
  get(url: string, name: string): string | undefined {
    return this.#jar.get(new URL(url).origin)?.get(name);
  }
  set(url: string, name: string, value: string): void {
    const origin = new URL(url).origin;
    if (!this.#jar.has(origin)) this.#jar.set(origin, new Map());
    this.#jar.get(origin)!.set(name, value);
  }
}

/** GET `url` following redirects across origins with the jar; resolves with every URL visited and the last answer. */
export async function follow(
  jar: CookieJar,
  url: string,
  opts: { stopAt?: (url: string) => boolean } = {},
): Promise<{ visited: string[]; res: Response; url: string }> {
  const visited: string[] = [];
  let current = url;
  for (let i = 0; i < 20; i++) {
    visited.push(current);
    const res = await fetch(current, { redirect: 'manual', headers: { cookie: jar.header(current) } });
    jar.take(current, res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { visited, res, url: current };
    const next = new URL(location, current).href;
    if (opts.stopAt?.(next)) {
      await res.arrayBuffer();
      return { visited: [...visited, next], res, url: next };
    }
    await res.arrayBuffer();
    current = next;
  }
  throw new Error('too many redirects');
}
