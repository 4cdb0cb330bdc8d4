import t from 'tap';
import { npmEnv, type TestHub } from '@hub/testkit';
import { packagePage, provenanceHub } from '../provenance-upstream.js';

const WIDGET = { sourceRepository: 'https://forge.example/acme/widget' };
const FORK = { sourceRepository: 'https://forge.example/mallory/widget' };

/** Waits for the background check of what a request fetched (bounded: a check that never lands fails the test). */
async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const provenanceOf = (hub: TestHub, version: string) =>
  until(
    `the provenance of ${version}`,
    async () => (await packagePage(hub)).get(version)?.provenance as Record<string, unknown> | undefined,
  );
const admin = (hub: TestHub, path: string) =>
  fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.adminToken}` } });

t.test(
  'require = true: npm install of a version without provenance is refused with the reason in npm output; a verified one installs and shows on the package page and SBOM (issue 30)',
  async (t) => {
    const { hub } = await provenanceHub(t, [{ version: '1.0.0', identity: WIDGET }, { version: '2.0.0' }], {
      rules: [{ registry: 'npm', packages: ['widget'], require: true }],
    });
    const env = npmEnv(t, `${hub.url}/proxy/npm/`, await hub.token('ci', { roles: ['reader'] }));

    const refused = await env.install('widget@2.0.0');
    t.not(refused.code, 0, 'npm install fails');
    t.match(refused.stderr, /E403|403 Forbidden/, 'npm reports the 403');
    t.match(
      refused.stderr,
      /widget 2\.0\.0 is refused: provenance required: the upstream attests no provenance for this version/,
      "npm prints hub's reason",
    );

    const ok = await env.install('widget@1.0.0');
    t.equal(ok.code, 0, `npm install of the verified version succeeds: ${ok.stderr}`);
    t.equal(env.installed('widget')?.version, '1.0.0');

    t.match(await provenanceOf(hub, '1.0.0'), {
      status: 'verified',
      source_repository: WIDGET.sourceRepository,
      workflow: `${WIDGET.sourceRepository}/.ci/release.yml@refs/heads/main`,
      ref: 'refs/heads/main',
      source_changed: false,
    });
    t.match(
      (await packagePage(hub)).get('2.0.0'),
      { held: false, provenance: { status: 'absent', reason: /attests no provenance/ } },
      'the refused version is on the page with why',
    );

    const bom = (await (await admin(hub, '/api/v1/admin/sbom/npm/widget/1.0.0?format=cyclonedx')).json()) as {
      metadata: { component: { properties: Array<{ name: string; value: string }>; externalReferences?: unknown[] } };
    };
    const props = Object.fromEntries(
      bom.metadata.component.properties
        .filter((p) => p.name.startsWith('hub:provenance'))
        .map((p) => [p.name, p.value]),
    );
    t.match(
      props,
      {
        'hub:provenance': 'verified',
        'hub:provenance_source': WIDGET.sourceRepository,
        'hub:provenance_ref': 'refs/heads/main',
      },
      'the SBOM carries the provenance',
    );
    t.match(bom.metadata.component.externalReferences, [{ type: 'vcs', url: WIDGET.sourceRepository }]);
    const spdx = (await (await admin(hub, '/api/v1/admin/sbom/npm/widget/1.0.0?format=spdx')).json()) as {
      packages: Array<{ comment?: string }>;
    };
    t.match(spdx.packages[0]!.comment, /provenance verified: source https:\/\/forge\.example\/acme\/widget/);
  },
);

t.test(
  'require = true refuses bundles that do not verify, and a source outside the rule, naming why (issue 30)',
  async (t) => {
    const { hub } = await provenanceHub(
      t,
      [
        { version: '1.0.0', identity: WIDGET, variant: 'tampered' },
        { version: '1.1.0', identity: WIDGET, variant: 'expired' },
        { version: '1.2.0', identity: WIDGET, variant: 'no-tlog' },
        { version: '1.3.0', identity: FORK },
        { version: '1.4.0', identity: WIDGET },
      ],
      { rules: [{ registry: 'npm', packages: ['widget'], source: ['forge.example/acme/*'] }] },
    );
    const get = (v: string) =>
      fetch(`${hub.url}/proxy/npm/widget/-/widget-${v}.tgz`, {
        headers: { authorization: `Bearer ${hub.adminToken}` },
      });
    const refusal = async (v: string) => {
      const res = await get(v);
      const body = (await res.json()) as { error: { code: string; message: string } };
      return { status: res.status, code: body.error.code, message: body.error.message };
    };
    t.match(
      await refusal('1.0.0'),
      {
        status: 403,
        code: 'package_blocked',
        message: /widget 1\.0\.0 is refused: provenance required: .*payload hash mismatch/,
      },
      'tampered',
    );
    t.match(
      await refusal('1.1.0'),
      { status: 403, code: 'package_blocked', message: /provenance required: .*certificate/ },
      'expired certificate',
    );
    t.match(
      await refusal('1.2.0'),
      { status: 403, code: 'package_blocked', message: /provenance required: .*(timestamp|tlog)/ },
      'no transparency-log entry',
    );
    t.match(
      await refusal('1.3.0'),
      {
        status: 403,
        code: 'package_blocked',
        message:
          /provenance required: built from forge\.example\/mallory\/widget, which is not forge\.example\/acme\/\*/,
      },
      'wrong source',
    );
    const ok = await get('1.4.0');
    t.equal(ok.status, 200, 'a valid bundle from an allowed source is served');
    await ok.arrayBuffer();
    t.match((await packagePage(hub)).get('1.1.0')?.provenance, { status: 'failed' }, 'failures are stored too');
  },
);

t.test(
  'a version built from another source repository than earlier ones: a provenance_changed event and a package fact (issue 30)',
  async (t) => {
    const { hub } = await provenanceHub(t, [
      { version: '1.0.0', identity: WIDGET },
      { version: '1.1.0', identity: FORK },
    ]);
    const env = npmEnv(t, `${hub.url}/proxy/npm/`, await hub.token('ci', { roles: ['reader'] }));
    t.equal((await env.install('widget@1.0.0')).code, 0);
    t.match(await provenanceOf(hub, '1.0.0'), { status: 'verified', source_changed: false });
    t.equal((await env.install('widget@1.1.0')).code, 0, 'without a rule, nothing is refused');
    t.match(await provenanceOf(hub, '1.1.0'), {
      status: 'verified',
      source_repository: FORK.sourceRepository,
      source_changed: true,
    });
    const events = (await (await admin(hub, '/api/v1/admin/events?type=provenance_changed')).json()) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    };
    t.match(events.events, [
      {
        type: 'provenance_changed',
        data: {
          registry: 'npm',
          package: 'widget',
          version: '1.1.0',
          source_repository: 'forge.example/mallory/widget',
          previous_version: '1.0.0',
          previous_source_repository: 'forge.example/acme/widget',
        },
      },
    ]);
    t.equal(events.events.length, 1);
  },
);
