import t from 'tap';
import { packagePage, provenanceHub } from './provenance-upstream.js';

const WIDGET = { sourceRepository: 'https://forge.example/acme/widget' };

t.test(
  'a hostile upstream: the attestations URL a packument names is never followed; oversized or malformed documents are refusals, not crashes (issue 30)',
  async (t) => {
    const { hub, upstream } = await provenanceHub(
      t,
      [
        // An internal address: hub must ask its configured upstream instead.
        { version: '1.0.0', identity: WIDGET, attestationsUrl: 'http://169.254.169.254/latest/meta-data/' },
        {
          version: '1.1.0',
          identity: WIDGET,
          document: JSON.stringify({
            attestations: [{ predicateType: 'https://slsa.dev/provenance/v1', bundle: 'x'.repeat(2 * 1024 * 1024) }],
          }),
        },
        { version: '1.2.0', identity: WIDGET, document: '{"attestations": [' },
        {
          version: '1.3.0',
          identity: WIDGET,
          document: JSON.stringify({
            attestations: Array.from({ length: 50 }, () => ({
              predicateType: 'https://slsa.dev/provenance/v1',
              bundle: { mediaType: 'x' },
            })),
          }),
        },
      ],
      { rules: [{ registry: 'npm', packages: ['widget'] }] },
    );
    const get = async (v: string) => {
      const res = await fetch(`${hub.url}/proxy/npm/widget/-/widget-${v}.tgz`, {
        headers: { authorization: `Bearer ${hub.adminToken}` },
      });
      return { status: res.status, text: await res.text() };
    };
    t.equal((await get('1.0.0')).status, 200, 'verified from the configured upstream');
    t.equal(
      upstream.count('/-/npm/v1/attestations/widget@1.0.0'),
      1,
      'the attestations document was asked of the upstream, at the path hub built',
    );
    t.match(
      await get('1.1.0'),
      { status: 403, text: /provenance required: the upstream's attestations could not be read/ },
      'a document over 1 MiB is not read whole',
    );
    t.match(await get('1.2.0'), {
      status: 403,
      text: /provenance required: the upstream's attestations could not be read \(the upstream's attestations of widget@1\.2\.0 is not JSON\)/,
    });
    t.match(
      await get('1.3.0'),
      { status: 403, text: /provenance required: (provenance bundle 1: )?not a Sigstore bundle/ },
      'a flood of bundles: the first bad one decides',
    );
    const page = await packagePage(hub);
    t.match(page.get('1.0.0')?.provenance, { status: 'verified' });
    t.equal(
      page.get('1.1.0')?.provenance,
      undefined,
      'an upstream that could not be read stores nothing: the next request asks again',
    );
  },
);
