import { call } from '../api.ts';
import { useData } from '../ui.tsx';

/** The configured registries, from the health card (one admin route, already read by the home page). */
export function RegistrySelect(p: {
  value: string;
  onChange: (v: string) => void;
  allowAll?: boolean;
  id?: string;
  allLabel?: string;
}) {
  const { data } = useData(() => call('health'), 'registries');
  const id = p.id ?? 'registry';
  return (
    <>
      <label for={id}>Registry</label>
      <select id={id} value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
        {p.allowAll && <option value="">{p.allLabel ?? 'All'}</option>}
        {!p.allowAll && !p.value && <option value="">Choose…</option>}
        {data?.registries.map((r) => (
          <option key={r.name} value={r.name}>
            {r.name}
          </option>
        ))}
      </select>
    </>
  );
}
