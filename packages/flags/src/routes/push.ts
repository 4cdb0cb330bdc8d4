import type Koa from 'koa';
import { Type, type Static } from 'typebox';
import {
  HubError,
  MAX_VERSION_RANGE_CHARS,
  errors,
  globMatches,
  parseJson,
  readJsonBytes,
  type AuditContext,
  type PluginContext,
} from '@hub/runtime';
import { bodyValidator, canonicalCoordinate, type RegistryRef } from '@hub/admin-kit';
import { EFFECTS, effectRank, type Effect } from '../effects.js';
import type { FlagMetrics } from '../metrics.js';
import { SIGNED_TIME_WINDOW_SECS, verifySigned, type SignedRequest } from '../signature.js';
import { flagJson, type FlagRow } from '../flag-json.js';
import type { VersionMatchers } from '../version-match.js';
import { bumpFlagChanges, heldBytesOf } from '../hard-blocks.js';
import { LiftAnswer, PushAnswer } from '../schemas.js';

/** At most this many flags a request; more is 413, nothing stored (the source splits the batch). */
export const MAX_BATCH = 1000;
export const SEVERITIES = ['low', 'moderate', 'high', 'critical'] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

const FlagItem = Type.Object(
  {
    external_id: Type.String({ minLength: 1, maxLength: 255 }),
    registry: Type.String({ minLength: 1, maxLength: 64 }),
    package_name: Type.String({ minLength: 1, maxLength: 512 }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    version_range: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_VERSION_RANGE_CHARS })),
    kind: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }),
    effect: Type.Union(EFFECTS.map((e) => Type.Literal(e))),
    summary: Type.Optional(Type.String({ maxLength: 4000 })),
    severity: Type.Optional(Type.Union(SEVERITIES.map((e) => Type.Literal(e)))),
    reference_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    fixed_version: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    expires_at: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
const validateItem = bodyValidator(FlagItem);
const Envelope = Type.Object({ flags: Type.Array(Type.Unknown(), { minItems: 1 }) }, { additionalProperties: false });
const validateEnvelope = bodyValidator(Envelope);

/** An http(s) URL `new URL` accepts, or why not. */
function badReferenceUrl(u: string): string | null {
  try {
    const url = new URL(u);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? null
      : 'reference_url: must be an http:// or https:// URL';
  } catch {
    return 'reference_url: must be an http:// or https:// URL';
  }
}

/** RFC 3339 (`2026-01-31T12:00:00Z`, an offset allowed) to epoch ms, or null. */
function rfc3339(s: string): number | null {
  if (!RFC3339.test(s)) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

/** One answer for a wrong signature and an unknown source, so sources cannot be enumerated. */
const invalidSignature = () =>
  new HubError('invalid_signature', 'the request is not signed by a configured flag source (X-Hub-Signature-256)');

/** Refused requests from one address write one audit row a minute, with no user: anyone can send them. */
export const REFUSED_AUDIT_WINDOW_MS = 60_000;

/**
 * Until a request proves its source, its audit row names no user and is throttled per client address (not per
 * source: the URL's source is the sender's choice, and varying it must not buy a row each).
 */
const UNPROVEN = { key: 'flag_unsigned', windowMs: REFUSED_AUDIT_WINDOW_MS };

/** The refusal; the source the URL claims goes into the row's detail only. */
function refused(ctx: Koa.Context, source: string): HubError {
  (ctx.state.audit as AuditContext).detail =
    `not signed by the source the URL names ("${source.replace(/[^A-Za-z0-9._-]/g, '?').slice(0, 64)}")`;
  return invalidSignature();
}

export interface FlagSource {
  secret: string;
  /** Secrets still accepted during a rotation; the audit row says when one of them matched. */
  previousSecrets: readonly string[];
  /** Accept requests signed without X-Hub-Timestamp / X-Hub-Delivery (replayable; decision 0014). */
  allowUnsignedTime: boolean;
  /** The strongest effect this source may set; stronger ones are stored capped. */
  maxEffect: Effect;
  /** Globs of the registries this source may flag. */
  registries: readonly string[];
  maxFlagsPerMinute: number;
}

export interface PushDeps {
  hub: Pick<PluginContext, 'db' | 'adminRoutes' | 'router' | 'config'>;
  sources: ReadonlyMap<string, FlagSource>;
  registry(name: string): RegistryRef;
  metrics: FlagMetrics;
  ranges: VersionMatchers;
  /** Called after any change, so this replica refuses at once (awaited before the answer). */
  changed(): Promise<void>;
  /** Whether hard blocks of this many bytes still fit in the held set ([limits] flag_hard_block_bytes). */
  fitsHeld(bytes: number): boolean;
}

type Stored = {
  source: string;
  external_id: string;
  registry: string;
  package_name: string;
  version: string | null;
  version_range: string | null;
  kind: string;
  effect: string;
  summary: string | null;
  severity: string | null;
  reference_url: string | null;
  fixed_version: string | null;
  expires_at: number | null;
  requested_effect: string | null;
};

/**
 * POST `/api/v1/flags/<source>` raises flags (an existing `external_id` is updated, a tombstone raised
 * again), each item on its own: good items are stored, bad ones answered by index. DELETE
 * `/api/v1/flags/<source>/<external_id>` lifts one, leaving a tombstone. No bearer token: the HMAC over
 * `<timestamp>\n<delivery>\n` and the exact body (or `DELETE\n<path>`) is the authentication; see verifySigned.
 */
export function mountFlagPush({ hub, sources, registry, metrics, ranges, changed, fitsHeld }: PushDeps): void {
  let prunedAt = 0;
  let countsPrunedAt = 0;
  /**
   * Checks the signature (the current secret, then any previous one), the signed time and that this
   * delivery was not seen before (on any replica: the table's key decides). Every failure is the same
   * 401; the log line says which check failed.
   */
  async function authenticate(
    ctx: Koa.Context,
    source: string,
    specPayload: Buffer | string,
  ): Promise<{ signedAt: number; secret: 'current' | 'previous' }> {
    const s = sources.get(source);
    const headers = {
      timestamp: ctx.get('x-hub-timestamp') || undefined,
      delivery: ctx.get('x-hub-delivery') || undefined,
      signature: ctx.get('x-hub-signature-256') || undefined,
    };
    let checked: SignedRequest = { ok: false, why: 'unknown source' };
    let which: 'current' | 'previous' = 'current';
    for (const [i, secret] of (s ? [s.secret, ...s.previousSecrets] : []).entries()) {
      checked = verifySigned({ secret, specPayload, headers, allowUnsignedTime: s!.allowUnsignedTime });
      which = i === 0 ? 'current' : 'previous';
      // Another secret is tried only when this one did not sign it; a signed request refused for its time is refused.
      if (checked.ok || checked.why !== 'signature') break;
    }
    if (!checked.ok) {
      ctx.state.log?.warn({ source: source.slice(0, 64), why: checked.why }, 'flag request refused');
      metrics.push(source, 'bad_signature');
      throw refused(ctx, source);
    }
    if (checked.delivery !== undefined) {
      const now = Date.now();
      if (now - prunedAt > 60_000) {
        prunedAt = now;
        await hub
          .db('flag_deliveries')
          .where('seen_at', '<', now - 2 * SIGNED_TIME_WINDOW_SECS * 1000)
          .delete();
      }
      const fresh = await hub
        .db('flag_deliveries')
        .insert({ source, delivery: checked.delivery, seen_at: now })
        .then(
          () => true,
          (e: unknown) => (isDuplicateKey(e) ? false : Promise.reject(e)),
        );
      if (!fresh) {
        ctx.state.log?.warn(
          { source, delivery: checked.delivery },
          'flag request refused: delivery already seen (a replay)',
        );
        metrics.push(source, 'bad_signature');
        throw refused(ctx, source);
      }
    }
    // Only a proven source names who acted in the audit row, and only its rows are all written.
    const audit = ctx.state.audit as AuditContext;
    audit.user_id = `flag-source:${source.slice(0, 100)}`;
    delete audit.throttle;
    return { signedAt: checked.signedAtMs, secret: which };
  }

  /**
   * Counts `n` flags against the source's minute in the database, shared by every replica. Over the limit
   * the count is taken back and the seconds to the next minute returned; else 0.
   */
  async function overRate(source: string, n: number, limit: number): Promise<number> {
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    const table = 'flag_push_counts';
    if (now - countsPrunedAt > 60_000) {
      countsPrunedAt = now;
      await hub
        .db(table)
        .where('minute', '<', minute - 1)
        .delete();
    }
    await hub
      .db(table)
      .insert({ source, minute, flags: n })
      .onConflict(['source', 'minute'])
      .merge({ flags: hub.db.raw('??.?? + ?', [table, 'flags', n]) });
    const row = (await hub.db(table).where({ source, minute }).first('flags')) as
      { flags: number | string } | undefined;
    if (Number(row?.flags ?? 0) <= limit) return 0;
    await hub.db(table).where({ source, minute }).decrement('flags', n);
    return Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
  }

  // Described in the OpenAPI document beside the admin routes; signed by the source, not a token (machine-only).
  hub.adminRoutes.add([
    {
      method: 'POST',
      path: '/api/v1/flags/:source',
      permission: null,
      summary: 'A flag source raises flags (signed; machine-only)',
      body: Type.Object(
        { flags: Type.Array(FlagItem, { minItems: 1, maxItems: MAX_BATCH }) },
        { additionalProperties: false },
      ),
      response: PushAnswer,
    },
    {
      method: 'DELETE',
      path: '/api/v1/flags/:source/:external_id',
      permission: null,
      summary: 'A flag source lifts a flag (signed; machine-only)',
      response: LiftAnswer,
    },
  ]);

  hub.router.post('/api/v1/flags/:source', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_raise', throttle: UNPROVEN };
    ctx.state.audit = audit;
    const raw = (await readJsonBytes(ctx, hub.config.limits.max_json_body_bytes)) ?? Buffer.alloc(0);
    const auth = await authenticate(ctx, source, raw);
    const src = sources.get(source)!;
    audit.detail = `secret: ${auth.secret}`;
    const parsed = parseJson(raw);
    // More than MAX_BATCH is 413 whole, before the items are read: the request is too large, not wrong, and a
    // source splitting batches on 413 (as for a body over max_json_body_bytes) needs no per-item answer.
    const count = (parsed as { flags?: unknown } | null)?.flags;
    if (Array.isArray(count) && count.length > MAX_BATCH)
      throw errors.payloadTooLarge(
        `at most ${MAX_BATCH} flags a request (this one has ${count.length}); nothing was stored`,
      );
    const body = validateEnvelope(parsed);
    const retryAfter = await overRate(source, body.flags.length, src.maxFlagsPerMinute);
    if (retryAfter > 0) {
      metrics.push(source, 'rate_limited', body.flags.length);
      audit.detail += `; rate limited (${src.maxFlagsPerMinute} flags a minute)`;
      throw errors.rateLimited(retryAfter);
    }

    const now = Date.now();
    const errs: { index: number; reason: string }[] = [];
    const firstIndex = new Map<string, number>();
    const rows: Array<{ index: number; row: Stored }> = [];
    let heldBytes = 0;
    body.flags.forEach((item, index) => {
      const id = (item as { external_id?: unknown } | null)?.external_id;
      if (typeof id === 'string') {
        const first = firstIndex.get(id);
        // Two decisions about one flag in one batch: the first is taken, the second answered as an error.
        if (first !== undefined)
          return errs.push({
            index,
            reason: `external_id: "${id.slice(0, 255)}" is already flags[${first}] in this batch`,
          });
        firstIndex.set(id, index);
      }
      try {
        const row = checkItem(validateItemAt(item), source, src);
        // A hard block that cannot be held in memory is not stored: a stored one refuses while the database is down.
        if (row.effect === 'hard_block') {
          const bytes = heldBytesOf(row);
          if (!fitsHeld(heldBytes + bytes))
            throw errors.badRequest(
              `not stored: the hard_block flags held in memory would pass [limits] flag_hard_block_bytes; raise it`,
            );
          heldBytes += bytes;
        }
        rows.push({ index, row });
      } catch (e) {
        if (!(e instanceof HubError)) throw e;
        errs.push({ index, reason: e.message });
      }
    });
    const skipped: { index: number; external_id: string; reason: string }[] = [];
    const saved = await hub.db.transaction(async (trx) => {
      const out: FlagRow[] = [];
      for (const { index, row: r } of rows) {
        const old = (await trx('flags').where({ source, external_id: r.external_id }).first()) as FlagRow | undefined;
        // Times are whole seconds: within one second the request that arrives last decides (delivery ids stop replays).
        if (old?.lift_signed_at != null && Number(old.lift_signed_at) > auth.signedAt) {
          skipped.push({ index, external_id: r.external_id, reason: 'lifted by a request signed later than this one' });
          continue;
        }
        // Re-sending an active flag keeps when it was raised: exposure counts fetches before that time.
        const raisedAt = old && old.state === 'active' ? Number(old.raised_at) : now;
        const row = {
          ...r,
          state: 'active',
          raised_at: raisedAt,
          updated_at: now,
          lifted_at: null,
          raise_signed_at: auth.signedAt,
        };
        if (old) await trx('flags').where({ id: old.id }).update(row);
        else await trx('flags').insert(row);
        out.push((await trx('flags').where({ source, external_id: r.external_id }).first()) as FlagRow);
      }
      if (out.length) await bumpFlagChanges(trx);
      return out;
    });
    if (saved.length) await changed();
    const capped = saved.filter((f) => f.requested_effect != null).length;
    metrics.push(source, 'accepted', saved.length);
    metrics.push(source, 'capped', capped);
    metrics.push(source, 'rejected', errs.length);
    errs.sort((a, b) => a.index - b.index);
    audit.detail =
      `secret: ${auth.secret}; raised ${saved.length}${errs.length ? `, rejected ${errs.length}` : ''}${capped ? `, capped ${capped}` : ''}: ${saved.map((f) => f.external_id).join(', ')}`.slice(
        0,
        1000,
      );
    if (saved.length === 1)
      Object.assign(audit, {
        registry: saved[0]!.registry,
        package: saved[0]!.package_name,
        version: saved[0]!.version ?? undefined,
      });
    ctx.type = 'application/json';
    ctx.body = {
      accepted: saved.length,
      rejected: errs.length,
      effect_capped: capped,
      errors: errs,
      flags: saved.map(flagJson),
      ...(skipped.length ? { skipped } : {}),
    };
  });

  /** One item's schema, its reason without the envelope's wording. */
  function validateItemAt(item: unknown): Static<typeof FlagItem> {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw errors.badRequest('a flag must be a JSON object');
    try {
      return validateItem(item);
    } catch (e) {
      if (e instanceof HubError) throw errors.badRequest(e.message.replace(/^body member /, '').replace(/^body: /, ''));
      throw e;
    }
  }

  /** Everything about one flag but its schema: version, registry and scope, name, URL, expiry, effect ceiling. */
  function checkItem(f: Static<typeof FlagItem>, source: string, src: FlagSource): Stored {
    if ((f.version === undefined) === (f.version_range === undefined))
      throw errors.badRequest('give version or version_range, not both or neither');
    let reg: RegistryRef;
    try {
      reg = registry(f.registry);
    } catch {
      throw errors.badRequest(`registry: no registry named "${f.registry.slice(0, 64)}"`);
    }
    if (!src.registries.some((g) => globMatches(g, reg.name)))
      throw errors.badRequest(
        `registry: flag source ${source} may not flag registry ${reg.name} (its registries: ${src.registries.join(', ')})`,
      );
    const c = canonicalCoordinate(reg, f.package_name, f.version, undefined);
    // Parsed here with the kind's own syntax, so an unparseable range is this item's error and never stored.
    const versionRange = f.version_range?.trim();
    if (versionRange !== undefined) {
      const m = ranges.compile(reg.name, versionRange);
      if (typeof m === 'string')
        throw errors.badRequest(
          `version_range: "${versionRange.slice(0, 64)}"${versionRange.length > 64 ? '...' : ''} is not a ${reg.kind.id} version range: ${m}`.slice(
            0,
            400,
          ),
        );
    }
    const urlProblem = f.reference_url === undefined ? null : badReferenceUrl(f.reference_url);
    if (urlProblem) throw errors.badRequest(urlProblem);
    let expiresAt: number | null = null;
    if (f.expires_at !== undefined) {
      expiresAt = rfc3339(f.expires_at);
      if (expiresAt === null)
        throw errors.badRequest(
          `expires_at: "${f.expires_at.slice(0, 64)}" is not an RFC 3339 time (e.g. 2026-01-31T12:00:00Z)`,
        );
    }
    const cappedEffect = effectRank(f.effect) > effectRank(src.maxEffect) ? src.maxEffect : f.effect;
    return {
      source,
      external_id: f.external_id,
      registry: reg.name,
      package_name: c.name,
      version: c.version ?? null,
      version_range: versionRange ?? null,
      kind: f.kind,
      effect: cappedEffect,
      summary: f.summary ?? null,
      severity: f.severity ?? null,
      reference_url: f.reference_url ?? null,
      fixed_version: f.fixed_version ?? null,
      expires_at: expiresAt,
      requested_effect: cappedEffect === f.effect ? null : f.effect,
    };
  }

  hub.router.delete('/api/v1/flags/:source/:external_id', async (ctx: Koa.Context) => {
    const source = String(ctx.params.source);
    const audit: AuditContext = { action: 'flag_lift', throttle: UNPROVEN };
    ctx.state.audit = audit;
    // Signed over the path as sent, so percent-encoding in an external id is part of what was signed.
    const { signedAt, secret } = await authenticate(ctx, source, `DELETE\n${ctx.path}`);
    const externalId = String(ctx.params.external_id);
    const old = (await hub.db('flags').where({ source, external_id: externalId }).first()) as FlagRow | undefined;
    if (!old) throw errors.notFound(`flag source ${source} has no flag ${externalId.slice(0, 255)}`);
    Object.assign(audit, {
      registry: old.registry,
      package: old.package_name,
      version: old.version ?? undefined,
      detail: `secret: ${secret}; lifted ${externalId.slice(0, 255)}`,
    });
    if (old.raise_signed_at != null && Number(old.raise_signed_at) > signedAt)
      throw errors.conflict(
        `flag ${externalId.slice(0, 255)} was raised by a request signed after this lift; it stays active`,
      );
    if (old.state === 'active')
      await hub.db.transaction(async (trx) => {
        await trx('flags')
          .where({ id: old.id })
          .update({ state: 'tombstone', lifted_at: Date.now(), updated_at: Date.now(), lift_signed_at: signedAt });
        await bumpFlagChanges(trx);
      });
    await changed();
    ctx.type = 'application/json';
    ctx.body = { flag: flagJson((await hub.db('flags').where({ id: old.id }).first()) as FlagRow) };
  });
}

/** A primary-key clash on SQLite or MySQL/MariaDB. */
function isDuplicateKey(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}
