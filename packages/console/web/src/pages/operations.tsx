import { useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';
import { setQuery } from '../route.ts';
import { Alert, Badge, errorText, useData, when } from '../ui.tsx';
import type { ActionAnswer, ActionBody } from '../action-types.ts';
import { BUILT_IN_ROLES, PERMISSIONS, type Permission } from '../../../../contract/src/access.ts';

type Result = { ok?: string; error?: string };
const outcome = (set: (r: Result) => void, ok: string, then?: () => void) =>
  [
    () => {
      set({ ok });
      then?.();
    },
    (e: unknown) => set({ error: errorText(e) }),
  ] as const;

export function OperationsPage(p: { me: Session; q: URLSearchParams }) {
  return (
    <>
      <h1>Operations</h1>
      <Users me={p.me} selected={p.q.get('user') ?? ''} />
      <IpBlocks me={p.me} />
      <Policies me={p.me} />
      <AccessCheck />
    </>
  );
}

function Users(p: { me: Session; selected: string }) {
  const users = useData(() => call('user_list'), 'users');
  const [id, setId] = useState('');
  const [role, setRole] = useState('reader');
  const [result, setResult] = useState<Result>({});
  const w = p.me.can.write;
  return (
    <section aria-labelledby="users-h">
      <h2 id="users-h">Users</h2>
      <Alert error={users.error ?? result.error} ok={result.ok} />
      {w && (
        <form
          class="filters"
          aria-label="Create a user"
          onSubmit={(e) => {
            e.preventDefault();
            call('user_create', { body: { id: id.trim(), roles: [role] } }).then(
              ...outcome(setResult, `Created user ${id.trim()}.`, users.reload),
            );
          }}
        >
          <label for="new-user">New user</label>
          <input id="new-user" required value={id} onInput={(e) => setId(e.currentTarget.value)} />
          <label for="new-role">Role</label>
          <select id="new-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {BUILT_IN_ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
          <button type="submit">Create user</button>
        </form>
      )}
      {users.data && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Roles</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.id} data-user={u.id}>
                  <th scope="row">{u.id}</th>
                  <td>{u.roles.join(', ')}</td>
                  <td>{u.blocked ? <Badge kind="bad">blocked</Badge> : <Badge kind="ok">active</Badge>}</td>
                  <td class="row-actions">
                    <button type="button" aria-label={`Tokens of ${u.id}`} onClick={() => setQuery({ user: u.id })}>
                      Tokens
                    </button>
                    {w && (
                      <button
                        type="button"
                        aria-label={`${u.blocked ? 'Unblock' : 'Block'} user ${u.id}`}
                        onClick={() =>
                          call(u.blocked ? 'user_unblock' : 'user_block', { params: { id: u.id } }).then(
                            ...outcome(setResult, `${u.blocked ? 'Unblocked' : 'Blocked'} ${u.id}.`, users.reload),
                          )
                        }
                      >
                        {u.blocked ? 'Unblock' : 'Block'}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {p.selected && <Tokens me={p.me} user={p.selected} />}
    </section>
  );
}

function Tokens(p: { me: Session; user: string }) {
  const detail = useData(() => call('user_read', { params: { id: p.user } }), `tokens|${p.user}`);
  const [perms, setPerms] = useState<Permission[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [result, setResult] = useState<Result>({});
  return (
    <section aria-labelledby="tokens-h">
      <h3 id="tokens-h">Tokens of {p.user}</h3>
      <Alert error={detail.error ?? result.error} ok={result.ok} />
      {secret && (
        <div class="banner" role="status">
          <p>
            <strong>The new token, shown this once:</strong>
          </p>
          <code class="secret" data-secret>
            {secret}
          </code>
          <button type="button" onClick={() => setSecret(null)}>
            I have stored it
          </button>
        </div>
      )}
      {p.me.can.write && (
        <form
          class="filters"
          aria-label="Create a token"
          onSubmit={(e) => {
            e.preventDefault();
            setResult({});
            call('token_create', { body: { user_id: p.user, ...(perms.length ? { permissions: perms } : {}) } }).then(
              (t: { id: string; token: string }) => {
                setSecret(t.token);
                detail.reload();
              },
              (err) => setResult({ error: errorText(err) }),
            );
          }}
        >
          <fieldset>
            <legend>Narrow to permissions (none: all of the user's)</legend>
            {PERMISSIONS.map((perm) => (
              <label key={perm} class="check">
                <input
                  type="checkbox"
                  checked={perms.includes(perm)}
                  onChange={(e) =>
                    setPerms(e.currentTarget.checked ? [...perms, perm] : perms.filter((x) => x !== perm))
                  }
                />{' '}
                {perm}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create token</button>
        </form>
      )}
      {detail.data && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Tokens of {p.user}</caption>
            <thead>
              <tr>
                <th scope="col">Token id</th>
                <th scope="col">Permissions</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {detail.data.tokens.map((t) => (
                <tr key={t.id}>
                  <th scope="row">{t.id}</th>
                  <td>{t.permissions?.join(', ') ?? "all of the user's"}</td>
                  <td>{when(t.created_at)}</td>
                  <td>
                    {t.revoked_at ? (
                      <Badge kind="muted">revoked {when(t.revoked_at)}</Badge>
                    ) : (
                      <Badge kind="ok">active</Badge>
                    )}
                  </td>
                  <td>
                    {p.me.can.write && !t.revoked_at && (
                      <button
                        type="button"
                        aria-label={`Revoke token ${t.id}`}
                        onClick={() =>
                          call('token_revoke', { params: { id: t.id } }).then(
                            ...outcome(setResult, `Revoked ${t.id}.`, detail.reload),
                          )
                        }
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function IpBlocks(p: { me: Session }) {
  const list = useData(() => call('ip_block_list'), 'ip-blocks');
  const [ip, setIp] = useState('');
  const [result, setResult] = useState<Result>({});
  return (
    <section aria-labelledby="ip-h">
      <h2 id="ip-h">IP blocks</h2>
      <Alert error={list.error ?? result.error} ok={result.ok} />
      {p.me.can.write && (
        <form
          class="filters"
          aria-label="Block an address"
          onSubmit={(e) => {
            e.preventDefault();
            call('ip_block_add', { body: { ip: ip.trim() } }).then(
              ...outcome(setResult, `Blocked ${ip.trim()}.`, list.reload),
            );
          }}
        >
          <label for="new-ip">Address or CIDR</label>
          <input id="new-ip" required value={ip} onInput={(e) => setIp(e.currentTarget.value)} />
          <button type="submit">Block address</button>
        </form>
      )}
      {list.data && (
        <ul class="plain">
          {list.data.ip_blocks.length === 0 && <li>No blocked addresses.</li>}
          {list.data.ip_blocks.map((b) => (
            <li key={b.ip}>
              <code>{b.ip}</code> {b.reason ?? ''}{' '}
              {p.me.can.write && (
                <button
                  type="button"
                  aria-label={`Unblock ${b.ip}`}
                  onClick={() =>
                    call('ip_block_remove', { params: { ip: b.ip } }).then(
                      ...outcome(setResult, `Unblocked ${b.ip}.`, list.reload),
                    )
                  }
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Policies(p: { me: Session }) {
  const list = useData(() => call('policy_list'), 'policies');
  const [effect, setEffect] = useState<'allow' | 'deny'>('deny');
  const [perm, setPerm] = useState<Permission>('source:read');
  const [users, setUsers] = useState('');
  const [registries, setRegistries] = useState('');
  const [packages, setPackages] = useState('');
  const [result, setResult] = useState<Result>({});
  const split = (s: string) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  return (
    <section aria-labelledby="pol-h">
      <h2 id="pol-h">Policies</h2>
      <Alert error={list.error ?? result.error} ok={result.ok} />
      {p.me.can.write && (
        <form
          class="filters"
          aria-label="Add a policy"
          onSubmit={(e) => {
            e.preventDefault();
            const body: ActionBody<'policy_create'> = { effect, permissions: [perm] };
            for (const [k, v] of [
              ['users', users],
              ['registries', registries],
              ['packages', packages],
            ] as const)
              if (split(v).length) body[k] = split(v);
            call('policy_create', { body }).then(...outcome(setResult, 'Policy added.', list.reload));
          }}
        >
          <label for="pol-effect">Effect</label>
          <select id="pol-effect" value={effect} onChange={(e) => setEffect(e.currentTarget.value as 'allow' | 'deny')}>
            <option>deny</option>
            <option>allow</option>
          </select>
          <label for="pol-perm">Permission</label>
          <select id="pol-perm" value={perm} onChange={(e) => setPerm(e.currentTarget.value as Permission)}>
            {PERMISSIONS.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
          <label for="pol-users">Users (comma-separated)</label>
          <input id="pol-users" value={users} onInput={(e) => setUsers(e.currentTarget.value)} />
          <label for="pol-regs">Registries</label>
          <input id="pol-regs" value={registries} onInput={(e) => setRegistries(e.currentTarget.value)} />
          <label for="pol-pkgs">Packages</label>
          <input id="pol-pkgs" value={packages} onInput={(e) => setPackages(e.currentTarget.value)} />
          <button type="submit">Add policy</button>
        </form>
      )}
      {list.data && (
        <ul class="plain">
          {list.data.policies.length === 0 && <li>No policies.</li>}
          {list.data.policies.map((pol) => (
            <li key={pol.rule}>
              <Badge kind={pol.effect === 'deny' ? 'bad' : 'ok'}>{pol.effect}</Badge> <code>{pol.rule}</code>{' '}
              {pol.permissions.join(', ')} ({pol.source}){' '}
              {p.me.can.write && pol.source !== 'config' && (
                <button
                  type="button"
                  aria-label={`Remove policy ${pol.rule}`}
                  onClick={() =>
                    call('policy_delete', { params: { id: String(pol.id ?? pol.rule) } }).then(
                      ...outcome(setResult, 'Policy removed.', list.reload),
                    )
                  }
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AccessCheck() {
  const [f, setF] = useState<{ user_id: string; permission: Permission; registry: string; package: string }>({
    user_id: '',
    permission: 'source:read',
    registry: '',
    package: '',
  });
  const [answer, setAnswer] = useState<ActionAnswer<'access_check'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="ac-h">
      <h2 id="ac-h">Access check</h2>
      <form
        class="filters"
        aria-label="Simulate an access decision"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          const body: ActionBody<'access_check'> = { permission: f.permission };
          for (const k of ['user_id', 'registry', 'package'] as const) if (f[k].trim()) body[k] = f[k].trim();
          call('access_check', { body }).then(
            (a) => setAnswer(a),
            (err) => setError(errorText(err)),
          );
        }}
      >
        <label for="ac-user">User</label>
        <input id="ac-user" value={f.user_id} onInput={(e) => setF({ ...f, user_id: e.currentTarget.value })} />
        <label for="ac-perm">Permission</label>
        <select
          id="ac-perm"
          value={f.permission}
          onChange={(e) => setF({ ...f, permission: e.currentTarget.value as Permission })}
        >
          {PERMISSIONS.map((x) => (
            <option key={x}>{x}</option>
          ))}
        </select>
        <label for="ac-reg">Registry</label>
        <input id="ac-reg" value={f.registry} onInput={(e) => setF({ ...f, registry: e.currentTarget.value })} />
        <label for="ac-pkg">Package</label>
        <input id="ac-pkg" value={f.package} onInput={(e) => setF({ ...f, package: e.currentTarget.value })} />
        <button type="submit">Check</button>
      </form>
      <Alert error={error} />
      {answer && (
        <p role="status" class="answer">
          <Badge kind={answer.decision === 'allow' ? 'ok' : 'bad'}>{answer.decision}</Badge> by{' '}
          <code>{answer.rule}</code>: {answer.reason}
        </p>
      )}
    </section>
  );
}
