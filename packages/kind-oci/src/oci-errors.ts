/**
 * The distribution spec's error format, beside hub's own (decision 0025): container clients print
 * `errors[].message`, so the reason a tag is blocked reaches skopeo's and podman's output.
 */
function ociCode(status: number, route: string | undefined): string {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'DENIED';
  if (status === 404) return route === 'manifest' ? 'MANIFEST_UNKNOWN' : route === 'blob' ? 'BLOB_UNKNOWN' : 'NAME_UNKNOWN';
  if (status === 400) return route === 'blob' ? 'DIGEST_INVALID' : 'NAME_INVALID';
  if (status === 405) return 'UNSUPPORTED';
  if (status === 429) return 'TOOMANYREQUESTS';
  return 'UNKNOWN';
}

export function errorBody(e: { status: number; code: string; message: string; route?: string }): Record<string, unknown> {
  return { errors: [{ code: ociCode(e.status, e.route), message: e.message, detail: { hub_code: e.code } }] };
}

/** Container clients answer a Bearer challenge with a token dance of their own: hub asks for Basic (the token as password). */
export function errorHeaders(e: { status: number }): Record<string, string> {
  return { 'Docker-Distribution-API-Version': 'registry/2.0', ...(e.status === 401 ? { 'WWW-Authenticate': 'Basic realm="hub"' } : {}) };
}
