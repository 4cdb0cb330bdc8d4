import Type, { type Static } from 'typebox';
import { AUDIT_POLICIES } from '@hub/runtime';

/** `[upstream_audit]`: this plugin's own section of hub.toml (a registry's `on_confirmed` overrides the policy). */
export const UpstreamAuditSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description: 'Run scheduled sweeps. On-demand sweeps and rechecks work regardless.',
    }),
    on_confirmed: Type.Enum(AUDIT_POLICIES, {
      default: 'audit',
      description:
        "What a confirmed disappearance does: `audit` records it, `block` also blocks the held versions. A registry's own on_confirmed overrides it.",
    }),
    confirm_after: Type.Integer({
      default: 3,
      minimum: 1,
      description: 'Consecutive sweeps that must miss a version before it is confirmed gone.',
    }),
    confirm_min_age_secs: Type.Integer({
      default: 86400,
      minimum: 0,
      description: 'And at least this long between the first miss and the confirmation.',
    }),
    outage_ratio: Type.Number({
      default: 0.25,
      minimum: 0,
      maximum: 1,
      description:
        "If more than this fraction of a registry's probed packages is missing, the sweep is void (an outage, not disappearances).",
    }),
    min_probed: Type.Integer({
      default: 10,
      minimum: 0,
      description: 'Below this many conclusive probes there is no ratio gate and nothing is blocked.',
    }),
    on_content_change: Type.Enum(['audit', 'block'], {
      default: 'audit',
      description:
        'What a held version whose digest the upstream now declares differently does (content drift): `audit` records and reports it (event package_content_changed), `block` also blocks that version as system:upstream-audit.',
    }),
    interval_secs: Type.Integer({
      default: 21600,
      minimum: 300,
      description: 'Seconds between scheduled sweeps (at least 300).',
    }),
  },
  { additionalProperties: false, default: {}, description: 'The upstream-disappearance audit.' },
);

export type UpstreamAuditConfig = Static<typeof UpstreamAuditSchema>;
