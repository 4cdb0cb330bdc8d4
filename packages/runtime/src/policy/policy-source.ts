import type { Knex } from 'knex';
import type { Permission } from '@hub/contract';
import type { PolicyConfig } from '../config/schema.js';
import type { Policy } from './decide.js';
import { POLICY_MEMO_MS } from './block-list.js';

/** What a policy row's `rule` column holds (JSON). */
export interface PolicyRule {
  permissions: Permission[];
  users?: string[];
  roles?: string[];
  tokens?: string[];
  registries?: string[];
  packages?: string[];
}

export interface PolicyRow {
  id: number;
  name: string | null;
  effect: 'allow' | 'deny';
  rule: PolicyRule;
  created_by: string;
  created_at: number;
}

export interface PolicySource {
  /** Config policies first, then the API's, as decide() takes them. At most POLICY_MEMO_MS old. */
  current(): Promise<readonly Policy[]>;
  /** Drops the memo (after a change on this replica). */
  invalidate(): void;
}

/** The rule name the simulator reports: the config `name`, else its position in `[[auth.policies]]`. */
export const configPolicyId = (p: PolicyConfig, i: number): string => p.name ?? `auth.policies[${i}]`;
/** An API policy is reported as `policy:<id>` (plus its name when it has one). */
export const apiPolicyId = (row: Pick<PolicyRow, 'id' | 'name'>): string => (row.name ? `policy:${row.id}:${row.name}` : `policy:${row.id}`);

export function policyFromRow(row: PolicyRow): Policy {
  return { effect: row.effect, ...row.rule, id: apiPolicyId(row), source: 'api' };
}

export function parsePolicyRow(raw: Record<string, unknown>): PolicyRow {
  return {
    id: Number(raw.id),
    name: (raw.name as string | null) ?? null,
    effect: raw.effect as 'allow' | 'deny',
    rule: JSON.parse(String(raw.rule)) as PolicyRule,
    created_by: String(raw.created_by),
    created_at: Number(raw.created_at),
  };
}

/**
 * Policies from `[[auth.policies]]` and from the `policies` table. Every replica re-reads the table
 * at most once per POLICY_MEMO_MS (one coalesced query), so an API change is in force everywhere
 * within that time; the replica that made it drops its memo at once.
 */
export function createPolicySource(db: Knex, configured: readonly PolicyConfig[]): PolicySource {
  const fromConfig: Policy[] = configured.map((p, i) => {
    const { name: _name, ...rule } = p;
    return { ...rule, id: configPolicyId(p, i), source: 'config' } as Policy;
  });
  let memo: { at: number; policies: readonly Policy[] } | undefined;
  let loading: Promise<readonly Policy[]> | undefined;
  let generation = 0;

  async function load(): Promise<readonly Policy[]> {
    const started = generation;
    const rows = (await db('policies').orderBy('id').select()) as Record<string, unknown>[];
    const policies = [...fromConfig, ...rows.map((r) => policyFromRow(parsePolicyRow(r)))];
    // A change invalidated us while the query ran: its answer may predate the change, so do not keep it.
    if (started === generation) memo = { at: Date.now(), policies };
    return policies;
  }

  return {
    async current() {
      if (memo && Date.now() - memo.at < POLICY_MEMO_MS) return memo.policies;
      loading ??= load().finally(() => (loading = undefined));
      return loading;
    },
    invalidate() {
      generation++;
      memo = undefined;
      loading = undefined;
    },
  };
}
