import { defineKind } from '@hub/runtime';
import { clientCheck } from './client-check.js';
import { isPackageName } from './names.js';
import { probe } from './probe.js';
import { routes } from './routes.js';
import { sbom } from './sbom.js';

/** npm: tarball downloads by the SPEC 4.1 routes, and packuments for the npm client. */
export default defineKind({
  id: 'npm',
  contract: 1,
  addressing: 'package',
  description: 'npm packages: tarballs, and packuments with tarball URLs rewritten to hub',
  coordinate: {
    parse(text) {
      const at = text.lastIndexOf('@');
      const [name, version] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, undefined];
      return isPackageName(name) ? (version ? { name, version } : { name }) : null;
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
  },
  routes,
  clientCheck,
  probe,
  sbom,
  publishTimes: true,
  // npm shows a failed request's JSON `error` only when it is a string, but logs an `npm-notice` header
  // always: so a refusal's reason reaches the person at the terminal. Header values must be printable ASCII.
  errorHeaders: (e): Record<string, string> => (e.status === 401 ? {} : { 'npm-notice': `hub: ${e.message}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000) }),
});
