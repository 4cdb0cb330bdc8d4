/**
 * Publishing with RubyGems' own commands, in `local` and `hybrid` registries (the runtime refuses these
 * routes in a proxy registry with 405, and checks `source:write`; gem sends its key as the bare
 * `Authorization` header, which the runtime accepts as a token).
 *
 * - `gem push`: `POST /api/v1/gems` with the .gem as the body. The .gem is read first (gem-package.ts):
 *   name, version, platform and dependencies from its gemspec; its checksums.yaml must match. Then it is
 *   stored under the key the `gems/` route serves, and the version recorded. A version published once
 *   is never replaced (409).
 * - `gem yank`: `DELETE /api/v1/gems/yank` with the form fields gem_name, version and platform. As on the
 *   public registry, a yanked version is gone: its file is deleted, it leaves every listing, and its
 *   number can never be pushed again (a tombstone: 409).
 * Replies are the plain text gem prints.
 */
import { errors, readCapped, reply, type KindRoute } from '@hub/contract';
import { readGem, tokenOf } from './gem-package.js';
import { fileName, isGemName, isVersionToken } from './names.js';

const TEXT = 'text/plain; charset=utf-8';
/** A yank's form is a few fields. */
const MAX_FORM_BYTES = 64 * 1024;

export const push: KindRoute = {
  id: 'push',
  methods: ['POST'],
  permission: 'source:write',
  match: (s) => (s.length === 3 && s[0] === 'api' && s[1] === 'v1' && s[2] === 'gems' ? {} : null),
  async handle(rc) {
    // rc.body() refuses what passes max_publish_bytes (413).
    const gem = await readCapped(rc.body(), Number.MAX_SAFE_INTEGER);
    const meta = await readGem(gem);
    const token = tokenOf(meta);
    const coordinate = { name: meta.name, version: token };
    // The name comes from the body: package-scoped policies and blocks are decided for it now.
    await rc.authorize(coordinate);
    await rc.local.putFile({
      key: `gems/${meta.name}/${fileName(meta.name, token)}.gem`,
      coordinate,
      contentType: 'application/octet-stream',
      format: 'tar',
      body: gem,
      digests: [{ algorithm: 'sha256', hex: meta.sha256 }],
      addsVersion: { meta },
    });
    rc.recordAction('publish', coordinate);
    return reply.bytes(`Successfully registered gem: ${meta.name} (${token})`, TEXT, {}, 200);
  },
};

export const yank: KindRoute = {
  id: 'yank',
  methods: ['DELETE'],
  permission: 'source:write',
  match: (s) => (s.length === 4 && s[0] === 'api' && s[1] === 'v1' && s[2] === 'gems' && s[3] === 'yank' ? {} : null),
  async handle(rc) {
    const body = await readCapped(rc.body(), MAX_FORM_BYTES, () =>
      errors.badRequest(`a yank form may be at most ${MAX_FORM_BYTES} bytes`),
    );
    const form = new URLSearchParams(body.toString('utf8'));
    const field = (k: string) => form.get(k) ?? rc.query.get(k) ?? '';
    const name = field('gem_name');
    const version = field('version');
    const platform = field('platform');
    if (!isGemName(name)) throw errors.badRequest(`"${name.slice(0, 100)}" is not a valid gem name`);
    const token = platform && platform !== 'ruby' ? `${version}-${platform}` : version;
    if (!isVersionToken(token))
      throw errors.badRequest(`"${token.slice(0, 100)}" is not a valid gem version (and platform)`);
    await rc.authorize({ name, version: token });
    if (!(await rc.local.deleteVersion(name, token))) throw errors.notFound(`${name} ${token} is not published here`);
    rc.recordAction('yank', { name, version: token });
    return reply.bytes(`Successfully deleted gem: ${name} (${token})`, TEXT, {}, 200);
  },
};
