import { HubError, type ErrorCode } from '@hub/contract';

/**
 * The distribution spec's error format, beside hub's own (decision 0025): container clients print
 * `errors[].message`, so the reason a tag is blocked reaches skopeo's and podman's output. A handler names a
 * code of the distribution API's own (`MANIFEST_BLOB_UNKNOWN`) with `ociError`; otherwise it follows from the status.
 */
function ociCode(status: number, route: string | undefined): string {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'DENIED';
  if (status === 404)
    return route === 'manifest' || route === 'manifest-write'
      ? 'MANIFEST_UNKNOWN'
      : route === 'blob'
        ? 'BLOB_UNKNOWN'
        : route === 'blob-upload'
          ? 'BLOB_UPLOAD_UNKNOWN'
          : 'NAME_UNKNOWN';
  if (status === 400)
    return route === 'blob' || route === 'blob-upload'
      ? 'DIGEST_INVALID'
      : route === 'manifest-write'
        ? 'MANIFEST_INVALID'
        : 'NAME_INVALID';
  if (status === 405) return 'UNSUPPORTED';
  if (status === 413) return 'SIZE_INVALID';
  if (status === 416) return 'BLOB_UPLOAD_INVALID';
  if (status === 429) return 'TOOMANYREQUESTS';
  return 'UNKNOWN';
}

export function errorBody(e: {
  status: number;
  code: string;
  message: string;
  route?: string;
  kindCode?: string;
}): Record<string, unknown> {
  // A first push to a hybrid registry of a repository its upstream has (decision 0043) is a refusal, not a bug.
  const code = e.kindCode ?? (e.code === 'name_exists_upstream' ? 'DENIED' : ociCode(e.status, e.route));
  return { errors: [{ code, message: e.message, detail: { hub_code: e.code } }] };
}

/** Container clients answer a Bearer challenge with a token dance of their own: hub asks for Basic (the token as password). */
export function errorHeaders(e: { status: number }): Record<string, string> {
  return {
    'Docker-Distribution-API-Version': 'registry/2.0',
    ...(e.status === 401 ? { 'WWW-Authenticate': 'Basic realm="hub"' } : {}),
  };
}

/** A refusal with the distribution spec's own code in its `errors` body. */
export const ociError = (code: ErrorCode, kindCode: string, message: string, status?: number): HubError =>
  new HubError(code, message, { detail: { kindCode }, status });
