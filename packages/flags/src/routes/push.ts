import type Koa from 'koa';
import { Type } from 'typebox';
import { HubError, bodyValidator, canonicalCoordinate, errors, parseJson, readJsonBytes, type AuditContext, type PluginContext, type RegistryRef } from '@hub/runtime';
import { EFFECTS } from '../effects.js';
import { SIGNED_TIME_WINDOW_SECS, verifySigned } from '../signature.js';
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

export interface FlagSource {
  secret: string;
  /** Accept requests signed without X-Hub-Timestamp / X-Hub-Delivery (replayable; decision 0014). */
  allowUnsignedTime: boolean;
}

export interface PushDeps {
  hub: PluginContext;
  sources: ReadonlyMap<string, FlagSource>;
  registry(name: string): RegistryRef;
  /** Called after any change, so this replica refuses at once. */
  changed(): void;
}

/**
 * POST `/api/v1/flags/<source>` raises flags (an existing `external_id` is updated, a tombstone raised
 * again); DELETE `/api/v1/flags/<source>/<external_id>` lifts one, leaving a tombstone. No bearer
 * token: the HMAC over `<timestamp>\n<delivery>\n` and the exact body (or `DELETE\n<path>`) is the
 * authentication; see verifySigned.
 */
export function mountFlagPush({ hub, sources, registry, changed }: PushDeps): void {
  let prunedAt = 0;
  /**
   * Checks the signature, the signed time and that this delivery was not seen before (on any replica: the
   * table's key decides). Every failure is the same 401; the log line says which check failed.
   */
  async function authenticate(ctx: Koa.Context, source: string, specPayload: Buffer | string): Promise<number> {
    const s = sources.get(source);
    const headers = { timestamp: ctx.get('x-hub-timestamp') || undefined, delivery: ctx.get('x-hub-delivery') || undefined, signature: ctx.get('x-hub-signature-256') || undefined };
    const checked = s ? verifySigned({ secret: s.secret, specPayload, headers, allowUnsignedTime: s.allowUnsignedTime }) : ({ ok: false, why: 'unknown source' } as const);
    if (!checked.ok) {
      ctx.state.log?.warn({ source: source.slice(0, 64), why: checked.why }, 'flag request refused');
      throw invalidSignature();
    }
    if (checked.delivery !== undefined) {
      const now = Date.now();
      if (now - prunedAt > 60_000) {
        prunedAt = now;
        await hub.db('flag_deliveries').where('seen_at', '<', now - 2 * SIGNED_TIME_WINDOW_SECS * 1000).delete();
      }
      const fresh = await hub.db('flag_deliveries')
        .insert({ source, delivery: checked.delivery, seen_at: now })
        .then(() => true, (e: unknown) => (isDuplicateKey(e) ? false : Promise.reject(e)));
      if (!fresh) {
        ctx.state.log?.warn({ source, delivery: checked.delivery }, 'flag request refused: delivery already seen (a replay)');
        throw invalidSignature();
      }
    }
    return checked.signedAtMs;
  }

  hub.router.post('/api/v1/flags/:source', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_raise', user_id: `flag-source:${source.slice(0, 100)}` };
    ctx.state.audit = audit;
    const raw = (await readJsonBytes(ctx, hub.config.limits.max_json_body_bytes)) ?? Buffer.alloc(0);
    const signedAt = await authenticate(ctx, source, raw);
    const body = validate(parseJson(raw));
    const now = Date.now();
    const firstIndex = new Map<string, number>();
    body.flags.forEach((f, i) => {
      const first = firstIndex.get(f.external_id);
      // Two decisions about one flag in one batch: storing either would hide the other.
      if (first !== undefined) throw errors.badRequest(`flags[${i}].external_id: "${f.external_id.slice(0, 255)}" is already flags[${first}] in this batch; nothing was stored`);
      firstIndex.set(f.external_id, i);
    });
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
    const skipped: { index: number; external_id: string; reason: string }[] = [];
    const saved = await hub.db.transaction(async (trx) => {
      const out: FlagRow[] = [];
      for (const [index, r] of rows.entries()) {
        const old = (await trx('flags').where({ source, external_id: r.external_id }).first()) as FlagRow | undefined;
        // Times are whole seconds: within one second the request that arrives last decides (delivery ids stop replays).
        if (old?.lift_signed_at != null && Number(old.lift_signed_at) > signedAt) {
          skipped.push({ index, external_id: r.external_id, reason: 'lifted by a request signed later than this one' });
          continue;
        }
        // Re-sending an active flag keeps when it was raised: exposure counts fetches before that time.
        const raisedAt = old && old.state === 'active' ? Number(old.raised_at) : now;
        const row = { ...r, state: 'active', raised_at: raisedAt, updated_at: now, lifted_at: null, raise_signed_at: signedAt };
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
    ctx.body = { accepted: saved.length, flags: saved.map(flagJson), ...(skipped.length ? { skipped } : {}) };
  });

  hub.router.delete('/api/v1/flags/:source/:external_id', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_lift', user_id: `flag-source:${source.slice(0, 100)}` };
    ctx.state.audit = audit;
    // Signed over the path as sent, so percent-encoding in an external id is part of what was signed.
    const signedAt = await authenticate(ctx, source, `DELETE\n${ctx.path}`);
    const externalId = String(ctx.params.external_id);
    const old = (await hub.db('flags').where({ source, external_id: externalId }).first()) as FlagRow | undefined;
    if (!old) throw errors.notFound(`flag source ${source} has no flag ${externalId.slice(0, 255)}`);
    Object.assign(audit, { registry: old.registry, package: old.package_name, version: old.version ?? undefined, detail: `lifted ${externalId.slice(0, 255)}` });
    if (old.raise_signed_at != null && Number(old.raise_signed_at) > signedAt) throw errors.conflict(`flag ${externalId.slice(0, 255)} was raised by a request signed after this lift; it stays active`);
    if (old.state === 'active') await hub.db('flags').where({ id: old.id }).update({ state: 'tombstone', lifted_at: Date.now(), updated_at: Date.now(), lift_signed_at: signedAt });
    changed();
    ctx.type = 'application/json';
    ctx.body = { flag: flagJson((await hub.db('flags').where({ id: old.id }).first()) as FlagRow) };
  });
}

/** A primary-key clash on SQLite or MySQL/MariaDB. */
function isDuplicateKey(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}
