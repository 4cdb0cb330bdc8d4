/**
 * Reads `<dependencies>` from a .nuspec with the contract's readXml (saxes): a document with a DOCTYPE is refused,
 * so nothing can expand (no billion laughs, no external entities).
 */
import { localName, readXml, XmlError } from '@hub/contract';

export interface NuspecDependency {
  id: string;
  /** The version range as written (`1.0.0` means at least 1.0.0); absent means any version. */
  range?: string;
  /** The group's targetFramework; absent for the flat (pre-group) form and groups without one. */
  targetFramework?: string;
}

export const MAX_DEPENDENCIES = 10_000;

const nuspecError = (code: 'ARCHIVE_CORRUPT' | 'ARCHIVE_LIMIT', message: string) =>
  Object.assign(new Error(message), { code });

/** The text of a .nuspec: UTF-8 (BOM or not) or UTF-16 with a BOM. */
export function nuspecText(data: Buffer): string {
  if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data[0] === 0xfe && data[1] === 0xff) return Buffer.from(data.subarray(2)).swap16().toString('utf16le');
  return data.toString('utf8').replace(/^\uFEFF/, '');
}

/** `package/metadata/dependencies/(group/)?dependency`, in document order. */
export function nuspecDependencies(xml: string): NuspecDependency[] {
  const stack: string[] = [];
  const out: NuspecDependency[] = [];
  let group: string | undefined;
  const attribute = (attributes: Record<string, string>, name: string): string | undefined =>
    Object.entries(attributes).find(([k]) => localName(k) === name)?.[1];
  try {
    readXml(xml, {
      open(qname, attributes, _at, selfClosing) {
        const name = localName(qname);
        const path = stack.join('/');
        if (name === 'group' && path === 'package/metadata/dependencies')
          group = attribute(attributes, 'targetFramework');
        if (
          name === 'dependency' &&
          (path === 'package/metadata/dependencies' || path === 'package/metadata/dependencies/group')
        ) {
          const id = attribute(attributes, 'id');
          const version = attribute(attributes, 'version');
          if (id) {
            if (out.length >= MAX_DEPENDENCIES)
              throw nuspecError('ARCHIVE_LIMIT', `the .nuspec names more than ${MAX_DEPENDENCIES} dependencies`);
            out.push({
              id,
              ...(version ? { range: version } : {}),
              ...(path.endsWith('group') && group ? { targetFramework: group } : {}),
            });
          }
        }
        if (!selfClosing) stack.push(name);
      },
      close(qname, _at, selfClosing) {
        if (localName(qname) === 'group') group = undefined;
        if (!selfClosing) stack.pop();
      },
    });
  } catch (e) {
    if (e instanceof XmlError) throw nuspecError('ARCHIVE_CORRUPT', `the .nuspec was refused (${e.message})`);
    throw e;
  }
  return out;
}
