import { CONSOLE_ACTIONS, type ConsoleActionName } from '../../src/actions.ts';
import type { ActionAnswer, ActionBody } from './action-types.ts';

/** An admin API refusal, as docs/errors.md shapes it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Session {
  user_id: string | null;
  roles: string[];
  can: { read: boolean; write: boolean };
  csrf: string;
  expires_at: string;
}

let csrf = '';
let onSignedOut: () => void = () => {};
export const setCsrf = (v: string) => {
  csrf = v;
};
export const whenSignedOut = (f: () => void) => {
  onSignedOut = f;
};

type Query = Record<string, string | number | boolean | undefined | null>;

export function queryString(q: Query = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The URL of an action: its route with `:params` filled in, each one URL-encoded segment. */
export function actionUrl(name: ConsoleActionName, params: Record<string, string> = {}, query?: Query): string {
  const a = CONSOLE_ACTIONS.find((x) => x.action === name)!;
  return a.path.replace(/:([a-z_]+)/g, (_, k: string) => encodeURIComponent(params[k] ?? '')) + queryString(query);
}

async function send<T>(method: string, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-hub-csrf'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!res.ok) {
    const e = new ApiError(res.status, data?.error?.code ?? 'error', data?.error?.message ?? `HTTP ${res.status}`);
    if (res.status === 401) onSignedOut();
    throw e;
  }
  return data as T;
}

/** Calls the one admin route of a console action. */
export function call<A extends ConsoleActionName>(
  name: A,
  o: { params?: Record<string, string>; query?: Query; body?: ActionBody<A> } = {},
): Promise<ActionAnswer<A>> {
  const a = CONSOLE_ACTIONS.find((x) => x.action === name)!;
  return send<ActionAnswer<A>>(a.method, actionUrl(name, o.params, o.query), o.body);
}

/** A way to sign in besides a token (single sign-on), as `GET /console/sign-in` lists it. */
export interface SignInMethod {
  id: string;
  label: string;
  url: string;
}

export const session = {
  current: () => send<Session>('GET', '/console/session'),
  methods: () => send<{ methods: SignInMethod[] }>('GET', '/console/sign-in'),
  signIn: (token: string, user?: string) =>
    send<Session>('POST', '/console/session', user ? { token, user } : { token }),
  signOut: () => send<void>('DELETE', '/console/session'),
};
