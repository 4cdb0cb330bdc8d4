/**
 * Reads `<dependencies>` from a .nuspec with a small XML tokenizer that knows no DTD: a document
 * with `<!DOCTYPE` is refused, and only the five predefined entities and character references are
 * decoded, so nothing can expand (no billion laughs, no external entities).
 */

export interface NuspecDependency {
  id: string;
  /** The version range as written (`1.0.0` means at least 1.0.0); absent means any version. */
  range?: string;
  /** The group's targetFramework; absent for the flat (pre-group) form and groups without one. */
  targetFramework?: string;
}

export const MAX_DEPENDENCIES = 10_000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const nuspecError = (code: 'ARCHIVE_CORRUPT' | 'ARCHIVE_LIMIT', message: string) => Object.assign(new Error(message), { code });

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, e: string) => {
    if (e[0] !== '#') return ENTITIES[e] ?? whole;
    const cp = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[localName(m[1]!)] = decode(m[2] ?? m[3] ?? '');
  return out;
}

/** The `>` closing the tag that starts before `from`; a `>` inside a quoted attribute value does not count. */
function tagEnd(xml: string, from: number): number {
  let quote = '';
  for (let j = from; j < xml.length; j++) {
    const c = xml[j]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return j;
  }
  return -1;
}

const localName = (qname: string): string => qname.slice(qname.indexOf(':') + 1);

/** The text of a .nuspec: UTF-8 (BOM or not) or UTF-16 with a BOM. */
export function nuspecText(data: Buffer): string {
  if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data[0] === 0xfe && data[1] === 0xff) return Buffer.from(data.subarray(2)).swap16().toString('utf16le');
  return data.toString('utf8').replace(/^\uFEFF/, '');
}

/** `package/metadata/dependencies/(group/)?dependency`, in document order. */
export function nuspecDependencies(xml: string): NuspecDependency[] {
  if (/<!DOCTYPE/i.test(xml)) throw nuspecError('ARCHIVE_CORRUPT', 'the .nuspec has a DOCTYPE; hub reads no DTDs');
  const stack: string[] = [];
  const out: NuspecDependency[] = [];
  let group: string | undefined;
  let i = 0;
  const skipTo = (end: string) => {
    const j = xml.indexOf(end, i);
    if (j === -1) throw nuspecError('ARCHIVE_CORRUPT', `the .nuspec ends inside a "${end}" section`);
    i = j + end.length;
  };
  while ((i = xml.indexOf('<', i)) !== -1) {
    if (xml.startsWith('<!--', i)) skipTo('-->');
    else if (xml.startsWith('<![CDATA[', i)) skipTo(']]>');
    else if (xml.startsWith('<?', i)) skipTo('?>');
    else if (xml.startsWith('<!', i)) throw nuspecError('ARCHIVE_CORRUPT', 'the .nuspec has a markup declaration');
    else {
      const end = tagEnd(xml, i + 1);
      if (end === -1) throw nuspecError('ARCHIVE_CORRUPT', 'the .nuspec ends inside a tag');
      const tag = xml.slice(i + 1, end);
      i = end + 1;
      if (tag.startsWith('/')) {
        if (localName(tag.slice(1).trim()) === 'group') group = undefined;
        stack.pop();
        continue;
      }
      const selfClosing = tag.endsWith('/');
      const name = localName(/^[^\s/]+/.exec(tag)?.[0] ?? '');
      const path = stack.join('/');
      if (name === 'group' && path === 'package/metadata/dependencies') group = attributes(tag).targetFramework;
      if (name === 'dependency' && (path === 'package/metadata/dependencies' || path === 'package/metadata/dependencies/group')) {
        const a = attributes(tag);
        if (a.id) {
          if (out.length >= MAX_DEPENDENCIES) throw nuspecError('ARCHIVE_LIMIT', `the .nuspec names more than ${MAX_DEPENDENCIES} dependencies`);
          out.push({ id: a.id, ...(a.version ? { range: a.version } : {}), ...(path.endsWith('group') && group ? { targetFramework: group } : {}) });
        }
      }
      if (!selfClosing) stack.push(name);
      else if (name === 'group') group = undefined;
    }
  }
  return out;
}
