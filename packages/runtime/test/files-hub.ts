import path from 'node:path';
import type { Test } from 'tap';
import { filesKind, type FixtureUpstream, startFixtureUpstream, startTestHub, type TestHub } from '@hub/testkit';

/** A hub with one `files` registry (the runtime's test kind) before an upstream holding `pkg/1.0.0/a.txt`. */
export async function startFilesHub(t: Test): Promise<TestHub & { upstream: FixtureUpstream; fileUrl: string }> {
  const root = t.testdir({ up: { pkg: { '1.0.0': { 'a.txt': 'file a' } } }, hub: {} });
  const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, fileUrl: `${hub.url}/proxy/files/pkg/1.0.0/a.txt` };
}
