/** `dotnet nuget push` and `dotnet nuget delete` as they go over the wire (dotnet is not installable here). */
import crypto from 'node:crypto';
import http from 'node:http';
import { makeZip, rawRequest } from '@hub/testkit';
import { basic, type NugetSetup } from './setup.js';

export interface Pkg {
  id: string;
  version: string;
  nuspecName?: string;
  nuspec?: string;
  deps?: string;
}

export function nuspecXml(p: Pkg): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
  <metadata>
    <id>${p.id}</id>
    <version>${p.version}</version>
    <authors>hub tests</authors>
    <description>Published by the push replay.</description>
    <dependencies>${p.deps ?? ''}</dependencies>
  </metadata>
</package>
`;
}

/** A .nupkg as `dotnet pack` lays it out: the .nuspec at the root, OPC parts, one assembly. */
export function nupkg(p: Pkg): Buffer {
  return makeZip({
    '_rels/.rels': '<?xml version="1.0" encoding="utf-8"?><Relationships/>',
    [p.nuspecName ?? `${p.id}.nuspec`]: p.nuspec ?? nuspecXml(p),
    [`lib/net8.0/${p.id}.dll`]: crypto.randomBytes(200),
    '[Content_Types].xml': '<?xml version="1.0" encoding="utf-8"?><Types/>',
  });
}

/**
 * The request `dotnet nuget push` sends (NuGet.Protocol PackageUpdateResource): a chunked PUT whose body is
 * .NET's MultipartFormDataContent with one StreamContent part ("package", "package.nupkg"), the boundary a
 * quoted GUID, the API key in X-NuGet-ApiKey.
 */
export function pushRequest(
  url: string,
  pkg: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const boundary = crypto.randomUUID();
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: form-data; name=package; filename=package.nupkg; filename*=utf-8''package.nupkg\r\n\r\n`,
    ),
    pkg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'PUT',
      headers: {
        'user-agent': 'NuGet Command Line/6.8.0 (Microsoft Windows NT 10.0.22631.0)',
        'x-nuget-client-version': '6.8.0',
        'x-nuget-session-id': crypto.randomUUID(),
        'x-nuget-apikey': 'AzureDevOps',
        'content-type': `multipart/form-data; boundary="${boundary}"`,
        'transfer-encoding': 'chunked',
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString() }),
      );
    });
    // Sent in pieces, as the client streams the file.
    for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
    req.end();
  });
}

/** The service index's PackagePublish/2.0.0 URL, as the client finds it. */
export async function publishUrl(s: NugetSetup): Promise<string | undefined> {
  const index = (await rawRequest(`${s.base}/nuget/v3/index.json`)).json() as {
    resources: { '@id': string; '@type': string }[];
  };
  return index.resources.find((r) => r['@type'] === 'PackagePublish/2.0.0')?.['@id'];
}

/**
 * `dotnet nuget push` with the token as the source's password in NuGet.config (packageSourceCredentials): the
 * first PUT carries no Authorization, gets hub's 401 Basic challenge, and is sent again with Basic credentials.
 */
export async function dotnetPush(s: NugetSetup, token: string, pkg: Buffer) {
  const url = (await publishUrl(s))!;
  const first = await pushRequest(url, pkg, {});
  if (first.status !== 401) return first;
  if (!/Basic/.test(String(first.headers['www-authenticate']))) return first;
  return pushRequest(url, pkg, basic('ci', token));
}

export const del = (s: NugetSetup, id: string, version: string, token: string, method = 'DELETE') =>
  rawRequest(`${s.base}/api/v2/package/${id}/${version}`, {
    method,
    headers: { ...basic('ci', token), 'x-nuget-apikey': 'key' },
  });

export async function tokens(s: NugetSetup) {
  return {
    publisher: await s.token('ci', { roles: ['publisher'] }),
    reader: await s.token('dev', { roles: ['reader'] }),
  };
}
