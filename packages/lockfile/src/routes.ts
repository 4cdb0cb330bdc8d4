import { errors } from '@hub/runtime';
import { adminRoute, type AdminCall, type AdminRoute } from '@hub/admin-kit';
import Type from 'typebox';
import { EntryAnswer, STATUSES } from './answer.js';
import { checkEntries } from './check.js';
import { LockfileError, type Ecosystem } from './entry.js';
import { FORMAT_NAMES, parseLockfile, type Format } from './parse.js';
import { selfGet } from './self-get.js';
import { warmEntries } from './warm.js';

/** What `retention_holds.reason` is for a label: `lockfile:<label>`. */
export const LABEL_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
export const holdReason = (label: string): string => `lockfile:${label}`;

const CheckBody = Type.Object(
  {
    lockfile: Type.String({ description: 'The lockfile text (UTF-8).' }),
    format: Type.Optional(
      Type.Unsafe<Format>(
        Type.String({
          enum: [...FORMAT_NAMES],
          description: 'The format; absent: told by `file_name`, else by the content.',
        }),
      ),
    ),
    file_name: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: "The lockfile's file name (`Cargo.lock`, `frontend/yarn.lock`), to tell its format.",
      }),
    ),
    registry: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "The registry that serves the lockfile's ecosystem; absent: the only registry of that type.",
      }),
    ),
    mark_required: Type.Optional(
      Type.String({
        pattern: LABEL_PATTERN,
        description:
          'Record held and fetchable entries as required under this label (`retention_holds` reason `lockfile:<label>`), so cleanup never removes them. Needs system:write too.',
      }),
    ),
    warm: Type.Optional(
      Type.Boolean({
        description:
          "Fetch the fetchable entries through the hub's own registry routes, with the caller's credentials, then answer.",
      }),
    ),
  },
  { additionalProperties: false },
);

const WarmSummary = Type.Object({
  entries: Type.Integer(),
  fetched: Type.Integer(),
  already_held: Type.Integer(),
  refused: Type.Integer(),
  failed: Type.Integer(),
  bytes: Type.Integer(),
  seconds: Type.Number(),
});

const CheckAnswer = Type.Object({
  format: Type.String(),
  ecosystem: Type.String(),
  registry: Type.Union([Type.String(), Type.Null()]),
  installable: Type.Boolean({ description: 'Whether every entry can be installed through hub now.' }),
  counts: Type.Record(Type.String(), Type.Integer(), { description: 'Entries per status.' }),
  entries: Type.Array(EntryAnswer),
  marked: Type.Optional(Type.Integer({ description: 'mark_required: versions recorded as required.' })),
  warm: Type.Optional(WarmSummary),
});

const ReleaseBody = Type.Object(
  { label: Type.String({ pattern: LABEL_PATTERN, description: 'The label a check marked versions required under.' }) },
  { additionalProperties: false },
);

export interface LockfileLimits {
  max_bytes: number;
  max_entries: number;
  concurrency: number;
}

/** The registry for an ecosystem: the one named (of that type), else the only one of that type, else null. */
function pickRegistry(call: AdminCall, ecosystem: Ecosystem, named: string | undefined): string | null {
  if (named !== undefined) {
    const ref = call.registry(named);
    if (ref.kind.id !== ecosystem)
      throw errors.badRequest(`registry "${named}" is of type ${ref.kind.id}; this lockfile is ${ecosystem}`);
    return ref.name;
  }
  const of = call.hub.registries.filter((r) => r.type === ecosystem).map((r) => r.name);
  if (of.length > 1)
    throw errors.badRequest(`several registries serve ${ecosystem} (${of.join(', ')}): name one with "registry"`);
  if (of.length === 0) return null;
  return call.registry(of[0]!).name;
}

export function lockfileRoutes(limits: LockfileLimits): AdminRoute[] {
  return [
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/lockfile/check',
      permission: 'system:read',
      action: 'lockfile_check',
      summary:
        'Check a lockfile: per entry held, fetchable, blocked, flagged, cool-down, unlisted, unknown upstream or integrity mismatch; optionally mark required or warm',
      body: CheckBody,
      response: CheckAnswer,
      async handle(call) {
        const { body, hub, ctx, audit } = call;
        let parsed;
        try {
          parsed = parseLockfile(body.lockfile, {
            format: body.format as Format | undefined,
            fileName: body.file_name,
            limits: { maxBytes: limits.max_bytes, maxEntries: limits.max_entries },
          });
        } catch (e) {
          if (e instanceof LockfileError) throw errors.badRequest(e.message);
          throw e;
        }
        const registry = pickRegistry(call, parsed.ecosystem, body.registry);
        audit.detail = `${parsed.format} ${registry ?? '-'} ${parsed.entries.length} entries${body.mark_required ? ` mark_required=${body.mark_required}` : ''}${body.warm ? ' warm' : ''}`;
        if (body.mark_required !== undefined) {
          const decide = await hub.access.snapshot();
          const d = decide({ subject: call.subject, permission: 'system:write', registry: registry ?? undefined });
          if (d.decision !== 'allow')
            throw errors.forbidden(`mark_required records holds: you lack system:write (${d.reason})`);
        }
        let entries = await checkEntries(hub, registry, parsed.entries, limits.concurrency);
        let warm;
        if (body.warm && registry !== null) {
          warm = (await warmEntries(entries, selfGet(ctx), { concurrency: limits.concurrency })).summary;
          // A file is stored just after its last byte was served: the second look sees it held.
          await hub.artifacts.idle();
          entries = await checkEntries(hub, registry, parsed.entries, limits.concurrency);
        }
        let marked: number | undefined;
        if (body.mark_required !== undefined && registry !== null) {
          marked = 0;
          for (const e of entries)
            if (e.status === 'held' || e.status === 'fetchable') {
              const name = hub.kinds.get(parsed.ecosystem)?.coordinate.normalizeName?.(e.name) ?? e.name;
              await hub.services.holds.hold(registry, name, e.version, holdReason(body.mark_required));
              marked++;
            }
        }
        const counts = Object.fromEntries(
          STATUSES.map((s) => [s, entries.filter((e) => e.status === s).length]).filter(([, n]) => n),
        );
        ctx.body = {
          format: parsed.format,
          ecosystem: parsed.ecosystem,
          registry,
          installable: entries.every((e) => e.installable),
          counts,
          entries,
          ...(marked === undefined ? {} : { marked }),
          ...(warm ? { warm } : {}),
        };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/lockfile/release',
      permission: 'system:write',
      action: 'lockfile_release',
      summary: 'Release the versions a lockfile check marked required under a label',
      body: ReleaseBody,
      response: Type.Object({ label: Type.String(), released: Type.Integer() }),
      async handle({ body, hub, ctx, audit }) {
        audit.detail = body.label;
        ctx.body = { label: body.label, released: await hub.services.holds.release(holdReason(body.label)) };
      },
    }),
  ];
}
