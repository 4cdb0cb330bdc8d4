import { Counter } from 'prom-client';
import type { HubMetrics } from '@hub/runtime';

export type CheckOutcome = 'verified' | 'failed' | 'absent' | 'error';

/**
 * On the hub's own registry: `hub_provenance_checks_total{registry,result}` (versions checked; `error`: the
 * upstream could not be asked, nothing stored) and `hub_provenance_denials_total{registry}` (requests refused by
 * a rule). Registry labels are configured names only.
 */
export function createProvenanceMetrics(hub: HubMetrics) {
  const registers = [hub.registry];
  const checks = new Counter({
    name: 'hub_provenance_checks_total',
    help: 'Versions whose provenance was checked, by registry and result (verified, failed, absent, error)',
    labelNames: ['registry', 'result'] as const,
    registers,
  });
  const denials = new Counter({
    name: 'hub_provenance_denials_total',
    help: 'Requests refused by a [[provenance.rules]] entry, by registry',
    labelNames: ['registry'] as const,
    registers,
  });
  return {
    checked: (registry: string, result: CheckOutcome) => checks.inc({ registry, result }),
    denied: (registry: string) => denials.inc({ registry }),
  };
}

export type ProvenanceMetrics = ReturnType<typeof createProvenanceMetrics>;
