/**
 * Kept listings (issue 29): once the upstream deleted a repository and the upstream audit has it as disappeared,
 * hub serves a tag's last good manifest when it holds the image the tag names, so skopeo still copies by tag;
 * a tag whose image hub never held stays gone. The first copy after the deletion shows it fails without the audit.
 */
import t from 'tap';
import { disappearedVersions, KEPT_AUDIT_CONFIG, revalidatePackage, sweepUpstream } from '@hub/testkit';
import { missingTools, skopeo } from '../docker-registry.js';
import { setup } from '../setup.js';
import { tempDir } from '../layout-dir.js';

const skip = missingTools();

t.test('skopeo copies by tag after the upstream deleted the repository', { skip, timeout: 240_000 }, async (t) => {
  const s = await setup(t, { config: KEPT_AUDIT_CONFIG, registry: { metadata_ttl_secs: 0 } });
  const token = await s.token('ci');
  const sk = skopeo(t);
  const creds = ['--src-tls-verify=false', '--src-creds', `ci:${token}`];
  const src = (ref: string) => `docker://${new URL(s.url).host}/dock/hub/demo${ref}`;
  const copy = (ref: string, label: string) =>
    sk(['copy', '--all', ...creds, src(ref), `oci:${tempDir(t, `hub-oci-kept-${label}-`)}:x`]).then(
      () => 'ok',
      (e: { stderr: string }) => `failed: ${e.stderr}`,
    );
  const tags = () =>
    sk(['list-tags', '--tls-verify=false', '--creds', `ci:${token}`, src('')]).then(
      (r) => (JSON.parse(r.stdout) as { Tags: string[] }).Tags.sort(),
      (e: { stderr: string }) => `failed: ${e.stderr}`,
    );
  t.equal(
    await copy(':1.0', 'first'),
    'ok',
    'hub/demo:1.0 copied through hub: hub holds its index, manifests and blobs',
  );
  t.same(await tags(), ['1.0', '1.1'], 'the tag list, through hub');
  await s.hub.artifacts.idle();

  const fresh = await revalidatePackage(s, 'dock', 'hub/demo');
  t.match(
    fresh,
    { before: ['1.0', '1.1'], after: ['1.0', '1.1'], added: [], gone: [] },
    'revalidation reads the same versions from the listing it refetched',
  );
  s.registry.repos.delete('hub/demo');
  t.match(await copy(':1.0', 'before-audit'), /^failed:/, 'without the audit the tag goes with the upstream');

  const swept = await sweepUpstream(s, 'dock');
  t.match(swept, { outcome: 'ok', missing: 1 }, 'the sweep finds the held image gone');
  t.ok(
    (await disappearedVersions(s, 'dock')).includes(`hub/demo@${s.images.v10.index.digest}`),
    'the index 1.0 names is confirmed disappeared',
  );
  t.equal(await copy(':1.0', 'kept'), 'ok', 'skopeo copies hub/demo:1.0 by tag from the kept tag manifest');
  t.match(await copy(':1.1', 'never-held'), /^failed:/, 'hub/demo:1.1, whose image hub never held, is not served');
  t.same(await tags(), ['1.0', '1.1'], 'the kept tag list is served as last seen (decision 0058)');
  const gone = await revalidatePackage(s, 'dock', 'hub/demo');
  t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
  t.ok(
    gone.documents.every((d) => d.outcome === 'not_found'),
    'each listing document answered 404, and its kept copy stays',
  );
});
