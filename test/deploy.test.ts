/**
 * What deploy/ ships is valid as written: every Kubernetes manifest against the API's schemas
 * (kubernetes-models), the ConfigMap's hub.toml against hub's own config loader with the default
 * plugins, the Secret naming every variable hub.toml reads, the grace period above the drain, and the
 * systemd unit through `systemd-analyze verify`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import * as k8s from 'kubernetes-models';
import { defaultPlugins } from '@hub/cli';
import { composePlugins } from '@hub/runtime/internal';
import { missingClient } from '@hub/testkit';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KUBE = path.join(ROOT, 'deploy/kubernetes');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string };
  [key: string]: unknown;
}

function yamlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? yamlFiles(p) : e.name.endsWith('.yaml') ? [p] : [];
  });
}

function documents(file: string): Manifest[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
    return d.toJSON() as Manifest;
  });
}

/** The kubernetes-models class for an apiVersion and kind: `apps/v1` Deployment → k8s.apps.v1.Deployment. */
function modelOf(m: Manifest): (new (data: object) => { validate(): void }) | undefined {
  const [group, version] = m.apiVersion.includes('/') ? m.apiVersion.split('/') : ['', m.apiVersion];
  // The package names a group by camel case: rbac.authorization.k8s.io → rbacAuthorizationK8sIo.
  const key = group!.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase());
  const ns = (group ? (k8s as Record<string, unknown>)[key] : k8s) as
    Record<string, Record<string, unknown>> | undefined;
  return ns?.[version!]?.[m.kind] as (new (data: object) => { validate(): void }) | undefined;
}

const manifests = yamlFiles(KUBE).filter((f) => path.basename(f) !== 'kustomization.yaml');
const kustomizations = yamlFiles(KUBE).filter((f) => path.basename(f) === 'kustomization.yaml');

t.test('every Kubernetes manifest under deploy/kubernetes is valid against the API schemas', async (t) => {
  t.ok(manifests.length >= 6, `${manifests.length} manifest files`);
  for (const file of manifests) {
    for (const m of documents(file)) {
      const Model = modelOf(m);
      if (!Model) {
        t.fail(`${path.relative(ROOT, file)}: no schema for ${m.apiVersion} ${m.kind}`);
        continue;
      }
      t.doesNotThrow(() => new Model(m).validate(), `${path.relative(ROOT, file)}: ${m.kind} ${m.metadata?.name}`);
    }
  }
});

t.test('a manifest with a mistake is refused by the same check (the check can fail)', async (t) => {
  const [deployment] = documents(path.join(KUBE, 'deployment.yaml'));
  const broken = structuredClone(deployment!) as unknown as { spec: { replicas: unknown } };
  broken.spec.replicas = 'two';
  t.throws(() => new (modelOf(deployment!)!)(broken).validate());
});

t.test('each kustomization names files that exist', async (t) => {
  for (const file of kustomizations) {
    const [k] = documents(file) as unknown as Array<{
      resources?: string[];
      configMapGenerator?: Array<{ files: string[] }>;
    }>;
    const dir = path.dirname(file);
    for (const r of k!.resources ?? [])
      t.ok(fs.existsSync(path.join(dir, r)), `${path.relative(ROOT, file)}: resource ${r}`);
    for (const f of (k!.configMapGenerator ?? []).flatMap((g) => g.files))
      t.ok(fs.existsSync(path.join(dir, f.split('=').at(-1)!)), `${path.relative(ROOT, file)}: file ${f}`);
  }
});

t.test("the ConfigMap's hub.toml loads with the default plugins, with the Secret's variables", async (t) => {
  const text = fs.readFileSync(path.join(KUBE, 'hub.toml'), 'utf8');
  const [secret] = documents(path.join(KUBE, 'secret.yaml')) as unknown as Array<{
    stringData: Record<string, string>;
  }>;
  const env = secret!.stringData;
  for (const name of text.matchAll(/_env\s*=\s*"([^"]+)"/g))
    t.ok(env[name[1]!] !== undefined, `secret.yaml holds ${name[1]}`);
  const { config } = await composePlugins({
    plugins: await defaultPlugins(),
    configText: text,
    configFile: path.join(KUBE, 'hub.toml'),
    env,
  });
  t.equal(config.database.client, 'mysql', 'replicas share a database');
  t.equal(config.storage.kind, 's3', 'and the blobs');

  const [deployment] = documents(path.join(KUBE, 'deployment.yaml')) as unknown as Array<{
    spec: {
      replicas: number;
      template: {
        spec: {
          terminationGracePeriodSeconds: number;
          containers: Array<{ readinessProbe: { httpGet: { path: string } } }>;
        };
      };
    };
  }>;
  const pod = deployment!.spec.template.spec;
  t.equal(deployment!.spec.replicas, 2);
  t.equal(pod.containers[0]!.readinessProbe.httpGet.path, '/readyz');
  const locked = pod as unknown as {
    securityContext: { runAsNonRoot: boolean };
    containers: Array<{
      securityContext: {
        readOnlyRootFilesystem: boolean;
        allowPrivilegeEscalation: boolean;
        capabilities: { drop: string[] };
      };
    }>;
  };
  t.equal(locked.securityContext.runAsNonRoot, true, 'never root');
  t.match(
    locked.containers[0]!.securityContext,
    { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    'a read-only root, no capabilities',
  );
  const server = config.server as { shutdown_grace_ms: number; drain_secs?: number };
  const stopSecs = (server.drain_secs ?? 0) + server.shutdown_grace_ms / 1000;
  t.ok(
    pod.terminationGracePeriodSeconds > stopSecs,
    `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} > drain + grace ${stopSecs}`,
  );
});

t.test(
  'the systemd unit passes systemd-analyze verify',
  {
    skip: fs.existsSync('/usr/bin/systemd-analyze')
      ? false
      : missingClient('systemd-analyze', 'apt-get install systemd'),
  },
  async (t) => {
    const unit = path.join(ROOT, 'deploy/systemd/hub.service');
    const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', unit]);
    t.equal(stderr.trim(), '', 'no warnings');
    const text = fs.readFileSync(unit, 'utf8');
    for (const key of ['DynamicUser=yes', 'ProtectSystem=strict', 'StateDirectory=hub', 'NoNewPrivileges=yes'])
      t.match(text, key);
  },
);
