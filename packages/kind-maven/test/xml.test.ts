import fs from 'node:fs';
import t from 'tap';
import { checkMetadata, listedVersions, rewriteMetadata } from '../src/metadata.js';
import { checkChecksumHead, checkNotHtml, checkPomHead, checkSignatureHead } from '../src/checks.js';
import { readXml } from '@hub/contract';
import { walk } from '../src/xml.js';
import { UPSTREAM, FIXTURES } from './setup.js';

const metadataXml = fs.readFileSync(`${UPSTREAM}org/hamcrest/hamcrest-core/maven-metadata.xml`);
const head = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s) : s).subarray(0, 512);

t.test('the metadata check wants a <metadata> document and refuses HTML and DOCTYPEs', async (t) => {
  t.equal(checkMetadata(metadataXml), null);
  t.match(checkMetadata(Buffer.from('<html><body>Service Unavailable</body></html>')), /HTML/);
  t.match(checkMetadata(Buffer.from('<!DOCTYPE html><html></html>')), /HTML/);
  t.match(checkMetadata(Buffer.from('{"error":"nope"}')), /XML/);
  t.match(checkMetadata(Buffer.from('<project/>')), /not <metadata>/);
  t.match(
    checkMetadata(Buffer.from('<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "b">]><metadata>&a;</metadata>')),
    /DOCTYPE/,
  );
  t.match(
    checkMetadata(Buffer.from('<metadata><versioning></metadata>')),
    /not well-formed XML \(1:33: unexpected close tag/,
  );
  t.match(checkMetadata(Buffer.from('<metadata><!DOCTYPE x></metadata>')), /DOCTYPE/, 'anywhere in the document');
  t.equal(
    checkMetadata(Buffer.from('\ufeff<?xml version="1.0"?>\n<!-- c --><metadata/>')),
    null,
    'BOM, declaration and comment before the root',
  );
});

t.test('the POM head check', async (t) => {
  t.equal(checkPomHead(head(fs.readFileSync(`${UPSTREAM}org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom`))), null);
  t.equal(
    checkPomHead(head(`<?xml version="1.0"?>\n<!--${' licence text'.repeat(60)}`)),
    null,
    'still inside a long licence comment at 512 bytes',
  );
  t.match(checkPomHead(head('<?xml version="1.0"?><!-- short')), /no root/);
  t.match(checkPomHead(head('<html><head><title>404</title></head></html>')), /HTML/);
  t.match(checkPomHead(head('<!DOCTYPE html>\n<html>')), /DOCTYPE|HTML/);
  t.match(checkPomHead(head(fs.readFileSync(`${FIXTURES}poms/entities.pom`))), /DOCTYPE/);
  t.match(checkPomHead(head('<metadata></metadata>')), /not <project>/);
  t.match(checkPomHead(head('PK\u0003\u0004binary')), /does not start with an XML tag/);
});

t.test('checksum, signature and other heads', async (t) => {
  const sha1 = checkChecksumHead('sha1');
  t.equal(sha1(Buffer.from('42a25dc3219429f0e5d060061f71acb49bf010a0')), null);
  t.equal(
    sha1(Buffer.from('42A25DC3219429F0E5D060061F71ACB49BF010A0  hamcrest-core-1.3.jar\n')),
    null,
    'with a file name, as old repositories wrote them',
  );
  t.match(sha1(Buffer.from('<html>Not Found</html>')), /not a sha1/);
  t.match(sha1(Buffer.from('42a25dc3219429f0e5d060061f71acb49bf010a0aa')), /not a sha1/, 'too long');
  t.match(checkChecksumHead('md5')(Buffer.from('42a25dc3219429f0e5d060061f71acb49bf010a0')), /not a md5/);
  t.equal(checkSignatureHead(Buffer.from('-----BEGIN PGP SIGNATURE-----\n')), null);
  t.match(checkSignatureHead(Buffer.from('<html>')), /PGP/);
  t.match(checkNotHtml(Buffer.from('\n<!DOCTYPE HTML><html>')), /HTML/);
  t.equal(checkNotHtml(Buffer.from('{"formatVersion":"1.1"}')), null);
});

t.test('only predefined entities and character references are decoded; nothing is expanded', async (t) => {
  const text = (xml: string) => {
    let out = '';
    readXml(xml, { text: (s) => (out += s) });
    return out;
  };
  t.equal(text('<a>a &amp; b &lt;c&gt; &#65;&#x42; &quot;&apos;<![CDATA[&amp;]]></a>'), `a & b <c> AB "'&amp;`);
  t.equal(text('<a>&xxe; &lol3;</a>'), '&xxe; &lol3;', 'undeclared entities stay as written');
  t.throws(
    () => walk(fs.readFileSync(`${FIXTURES}poms/entities.pom`, 'utf8'), () => {}),
    /DOCTYPE/,
    'billion laughs and an external entity: refused',
  );
  const external = '<?xml version="1.0"?><!DOCTYPE project SYSTEM "http://127.0.0.1:9/evil.dtd"><project/>';
  t.throws(() => walk(external, () => {}), /DOCTYPE/, 'an external DTD: refused, never fetched');
  t.throws(() => walk('<a><b></a>', () => {}), /not well-formed/, 'not well-formed');
});

t.test('listed versions', async (t) => {
  t.same(listedVersions(metadataXml.toString()), ['1.1', '1.2', '1.3.RC2', '1.3']);
});

t.test('unlisting rewrites <versions>, <latest> and <release>', async (t) => {
  t.equal(rewriteMetadata(metadataXml, new Set()), metadataXml, 'nothing hidden: the same bytes');
  t.equal(
    rewriteMetadata(metadataXml, new Set(['9.9'])),
    metadataXml,
    'hiding a version it does not list changes nothing',
  );

  const out = rewriteMetadata(metadataXml, new Set(['1.3'])).toString();
  t.same(listedVersions(out), ['1.1', '1.2', '1.3.RC2']);
  t.match(out, /<latest>1\.3\.RC2<\/latest>/, 'latest: the highest left');
  t.match(out, /<release>1\.3\.RC2<\/release>/, 'release: the highest non-SNAPSHOT left');
  t.notMatch(out, /\n\s*\n/, 'no blank line where the version was');
  t.equal(checkMetadata(Buffer.from(out)), null, 'still a valid document');
  t.equal(
    out,
    metadataXml
      .toString()
      .replace('      <version>1.3</version>\n', '')
      .replace('<latest>1.3<', '<latest>1.3.RC2<')
      .replace('<release>1.3<', '<release>1.3.RC2<'),
    'only those bytes changed',
  );

  const middle = rewriteMetadata(metadataXml, new Set(['1.2'])).toString();
  t.same(listedVersions(middle), ['1.1', '1.3.RC2', '1.3']);
  t.match(middle, /<latest>1\.3<\/latest>/, 'pointers untouched when they name a listed version');

  const none = rewriteMetadata(metadataXml, new Set(['1.1', '1.2', '1.3.RC2', '1.3'])).toString();
  t.same(listedVersions(none), []);
  t.notMatch(none, /<latest>|<release>/, 'nothing left to point at: the pointers go');

  const snapshots = Buffer.from(
    '<metadata><versioning><latest>2.0-SNAPSHOT</latest><release>1.0</release><versions><version>1.0</version><version>2.0-SNAPSHOT</version></versions></versioning></metadata>',
  );
  const s = rewriteMetadata(snapshots, new Set(['2.0-SNAPSHOT'])).toString();
  t.equal(
    s,
    '<metadata><versioning><latest>1.0</latest><release>1.0</release><versions><version>1.0</version></versions></versioning></metadata>',
  );
  const r = rewriteMetadata(snapshots, new Set(['1.0'])).toString();
  t.match(r, /<latest>2\.0-SNAPSHOT<\/latest><versions>/, 'release removed: only a SNAPSHOT is left');
});
