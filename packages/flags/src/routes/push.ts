import type Koa from 'koa';
import { Type } from 'typebox';
import { bodyValidator, canonicalCoordinate, type RegistryRef } from '@hub/admin';
import { HubError, errors, parseJson, readJsonBytes, type AuditContext, type PluginContext } from '@hub/runtime';
import { EFFECTS } from '../effects.js';
import { signatureMatches } from '../signature.js';
import { flagJson, type FlagRow } from '../flag-json.js';

const FlagItem = Type.Object(
  {
    external_id: Type.String({ minLength: 1, maxLength: 255 }),
    registry: Type.String({ minLength: 1, maxLength: 64 }),
    package_name: Type.String({ minLength: 1, maxLength: 512 }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    version_range: Type.Optional(Type.Literal('*')),
    kind: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }),
    effect: Type.Union(EFFECTS.map((e) => Type.Literal(e))),
    summary: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
);
const PushBody = Type.Object({ flags: Type.Array(FlagItem, { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });
const validate = bodyValidator(PushBody);

/** One answer for a wrong signature and an unknown source, so sources cannot be enumerated. */
const invalidSignature = () => new HubError('invalid_signature', 'the request is not signed by a configured flag source (X-Hub-Signature-256)');

export interface PushDeps {
  hub: PluginContext;
  /** Source name to shared secret. */
  secrets: ReadonlyMap<string, string>;
  registry(name: string): RegistryRef;
  /** Called after any change, so this replica refuses at once. */
  changed(): void;
}

/**
 * POST `/api/v1/flags/<source>` raises flags (an existing `external_id` is updated, a tombstone raised
 * again); DELETE `/api/v1/flags/<source>/<external_id>` lifts one, leaving a tombstone. No bearer
 * token: the HMAC over the exact body (or over `DELETE\n<path>`) is the authentication.
 */
export function mountFlagPush({ hub, secrets, registry, changed }: PushDeps): void {
  hub.router.post('/api/v1/flags/:source', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_raise', user_id: `flag-source:${source.slice(0, 100)}` };
    ctx.state.audit = audit;
    const raw = (await readJsonBytes(ctx, hub.config.limits.max_json_body_bytes)) ?? Buffer.alloc(0);
    const secret = secrets.get(source);
    if (secret === undefined || !signatureMatches(secret, raw, ctx.get('x-hub-signature-256'))) throw invalidSignature();
    const body = validate(parseJson(raw));
    const now = Date.now();
    const rows = body.flags.map((f, i) => {
      const at = `flags[${i}]`;
      if ((f.version === undefined) === (f.version_range === undefined)) throw errors.badRequest(`${at}: give version or version_range "*", not both or neither`);
      let reg: RegistryRef;
      try {
        reg = registry(f.registry);
      } catch {
        throw errors.badRequest(`${at}.registry: no registry named "${f.registry.slice(0, 64)}"`);
      }
      const c = canonicalCoordinate(reg, f.package_name, f.version, undefined);
      return { source, external_id: f.external_id, registry: reg.name, package_name: c.name, version: c.version ?? null, version_range: f.version_range ?? null, kind: f.kind, effect: f.effect, summary: f.summary ?? null };
    });
    const saved = await hub.db.transaction(async (trx) => {
      const out: FlagRow[] = [];
      for (const r of rows) {
        const old = (await trx('flags').where({ source, external_id: r.external_id }).first()) as FlagRow | undefined;
        // Re-sending an active flag keeps when it was raised: exposure counts fetches before that time.
        const raisedAt = old && old.state === 'active' ? Number(old.raised_at) : now;
        const row = { ...r, state: 'active', raised_at: raisedAt, updated_at: now, lifted_at: null };
        if (old) await trx('flags').where({ id: old.id }).update(row);
        else await trx('flags').insert(row);
        out.push((await trx('flags').where({ source, external_id: r.external_id }).first()) as FlagRow);
      }
      return out;
    });
    changed();
    audit.detail = `raised ${saved.length}: ${saved.map((f) => f.external_id).join(', ')}`.slice(0, 1000);
    if (saved.length === 1) Object.assign(audit, { registry: saved[0]!.registry, package: saved[0]!.package_name, version: saved[0]!.version ?? undefined });
    ctx.type = 'application/json';
    ctx.body = { accepted: saved.length, flags: saved.map(flagJson) };
  });

  hub.router.delete('/api/v1/flags/:source/:external_id', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_lift', user_id: `flag-source:${source.slice(0, 100)}` };
    ctx.state.audit = audit;
    const secret = secrets.get(source);
    // Signed over the path as sent, so percent-encoding in an external id is part of what was signed.
    if (secret === undefined || !signatureMatches(secret, `DELETE\n${ctx.path}`, ctx.get('x-hub-signature-256'))) throw invalidSignature();
    const externalId = String(ctx.params.external_id);
    const old = (await hub.db('flags').where({ source, external_id: externalId }).first()) as FlagRow | undefined;
    if (!old) throw errors.notFound(`flag source ${source} has no flag ${externalId.slice(0, 255)}`);
    Object.assign(audit, { registry: old.registry, package: old.package_name, version: old.version ?? undefined, detail: `lifted ${externalId.slice(0, 255)}` });
    if (old.state === 'active') await hub.db('flags').where({ id: old.id }).update({ state: 'tombstone', lifted_at: Date.now(), updated_at: Date.now() });
    changed();
    ctx.type = 'application/json';
    ctx.body = { flag: flagJson((await hub.db('flags').where({ id: old.id }).first()) as FlagRow) };
  });
}
