import type { Knex } from 'knex';
import type { Permission } from '@hub/contract';
import type { PolicyConfig } from '../config/schema.js';
import type { Policy } from './decide.js';
import type { PolicyRecord } from '../storage/tables.js';
import { createPolicyMemo } from './policy-memo.js';

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
  /** Config policies first, then the API's, as decide() takes them. At most POLICY_MEMO_MS old (OUTAGE_MEMO_MS while the database is down). */
  current(): Promise<readonly Policy[]>;
  /** current() without waiting, when the memo holds a fresh answer (else undefined): the request path's fast case. */
  fresh(): readonly Policy[] | undefined;
  /** The API's policies, oldest first. */
  list(): Promise<PolicyRow[]>;
  get(id: number): Promise<PolicyRow | null>;
  add(p: { name: string | null; effect: 'allow' | 'deny'; rule: PolicyRule; by: string }): Promise<PolicyRow>;
  /** Resolves with the removed policy, or null when there is none. */
  remove(id: number): Promise<PolicyRow | null>;
  /** Drops the memo (add and remove do it themselves). */
  invalidate(): void;
  /**
   * Policies a plugin derives from its own hub.toml section (a workload's registry scope): in force like
   * `[[auth.policies]]` (source `config`), never stored, so the API neither lists nor removes them.
   */
  addConfigured(policies: readonly Policy[]): void;
  /** `[[auth.policies]]` after a config reload; what plugins added stays. */
  replaceConfigured(configured: readonly PolicyConfig[]): void;
}

/** The rule name the simulator reports: the config `name`, else its position in `[[auth.policies]]`. */
export const configPolicyId = (p: PolicyConfig, i: number): string => p.name ?? `auth.policies[${i}]`;
/** An API policy is reported as `policy:<id>` (plus its name when it has one). */
export const apiPolicyId = (row: Pick<PolicyRow, 'id' | 'name'>): string =>
  row.name ? `policy:${row.id}:${row.name}` : `policy:${row.id}`;

function parsePolicyRow(raw: PolicyRecord): PolicyRow {
  return { ...raw, id: Number(raw.id), rule: JSON.parse(raw.rule) as PolicyRule, created_at: Number(raw.created_at) };
}

/**
 * Policies from `[[auth.policies]]` and from the `policies` table. Every replica re-reads the table
 * at most once per POLICY_MEMO_MS (one coalesced query), so an API change is in force everywhere
 * within that time; the replica that made it drops its memo at once.
 */
export function createPolicySource(db: Knex, configured: readonly PolicyConfig[]): PolicySource {
  const fromAuth = (list: readonly PolicyConfig[]): Policy[] =>
    list.map((p, i) => {
      const { name: _name, ...rule } = p;
      return { ...rule, id: configPolicyId(p, i), source: 'config' };
    });
  let fromConfig: Policy[] = fromAuth(configured);
  const fromPlugins: Policy[] = [];
  // One entry: the whole table. A change invalidating it while a read runs keeps that read's answer out.
  const memo = createPolicyMemo<readonly Policy[]>({ max: 1 });
  const load = async (): Promise<readonly Policy[]> => [
    ...fromConfig,
    ...(await list()).map((row): Policy => ({ effect: row.effect, ...row.rule, id: apiPolicyId(row), source: 'api' })),
  ];

  const list = async () => (await db('policies').orderBy('id').select()).map(parsePolicyRow);
  async function get(id: number): Promise<PolicyRow | null> {
    const row = await db('policies').where({ id }).first();
    return row ? parsePolicyRow(row) : null;
  }
  const invalidate = () => memo.clear();

  return {
    list,
    get,
    async add(p) {
      const row = {
        name: p.name,
        effect: p.effect,
        rule: JSON.stringify(p.rule),
        created_by: p.by,
        created_at: Date.now(),
      };
      const [id] = await db('policies').insert(row);
      invalidate();
      return { ...row, id: Number(id), rule: p.rule };
    },
    async remove(id) {
      const row = await get(id);
      if (!row) return null;
      await db('policies').where({ id }).delete();
      invalidate();
      return row;
    },
    current: () => memo.get('', load),
    fresh: () => memo.fresh(''),
    invalidate,
    addConfigured(policies) {
      const added = policies.map((p): Policy => ({ ...p, source: 'config' }));
      fromPlugins.push(...added);
      fromConfig.push(...added);
      invalidate();
    },
    replaceConfigured(list) {
      fromConfig = [...fromAuth(list), ...fromPlugins];
      invalidate();
    },
  };
}
