import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { readForm, type FormOptions } from '../src/form.js';
import { HubError } from '../src/errors.js';

const B = 'xYz0123';
const TYPE = `multipart/form-data; boundary=${B}`;
const field = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string, filename: string, data: string | Buffer) =>
  Buffer.concat([
    Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.from(data),
    Buffer.from('\r\n'),
  ]);
const end = `--${B}--\r\n`;

/** The body in 7-byte chunks: every place a socket could cut a delimiter. */
const chunked = (body: Buffer | string) => {
  const b = Buffer.from(body);
  return Readable.from(
    (function* () {
      for (let i = 0; i < b.length; i += 7) yield b.subarray(i, i + 7);
    })(),
  );
};

/** A fresh temp directory per test, to check that nothing is left in it. */
async function withDir(t: Test): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'form-test-'));
  t.teardown(() => fsp.rm(dir, { recursive: true, force: true }));
  return dir;
}

const opts = (dir: string, o: Partial<FormOptions> = {}): FormOptions => ({
  expected: 'an upload is a form',
  maxFileBytes: 1024,
  dir,
  ...o,
});

async function refused(
  t: Test,
  dir: string,
  body: Buffer | string,
  o: Partial<FormOptions>,
  status: number,
  message: RegExp,
  contentType: string | undefined = TYPE,
) {
  const e = await readForm(chunked(body), contentType, opts(dir, o)).then(
    () => null,
    (err: unknown) => err,
  );
  t.ok(e instanceof HubError, 'a HubError');
  t.equal((e as HubError).status, status);
  t.match((e as HubError).message, message);
  t.same(await fsp.readdir(dir), [], 'nothing kept');
}

t.test('a well-formed form: fields, a file spooled and hashed, cleanup removes it', async (t) => {
  const dir = await withDir(t);
  const data = crypto.randomBytes(900);
  const body = Buffer.concat([
    Buffer.from(
      field(':action', 'file_upload') + field('name', 'Demo') + field('classifiers', 'a') + field('classifiers', 'b'),
    ),
    file('content', '../dir/démo-1.0.tar.gz', data),
    Buffer.from(end),
  ]);
  const form = await readForm(
    chunked(body),
    `multipart/form-data; charset=utf-8; boundary="${B}"`,
    opts(dir, { digests: ['sha512'] }),
  );
  t.same(
    [...form.fields],
    [
      [':action', ['file_upload']],
      ['name', ['Demo']],
      ['classifiers', ['a', 'b']],
    ],
  );
  t.equal(form.files.length, 1);
  const f = form.files[0]!;
  t.equal(f.field, 'content');
  t.equal(f.filename, '../dir/démo-1.0.tar.gz', 'the filename as sent (UTF-8, path kept for the caller to refuse)');
  t.equal(f.size, 900);
  t.same(await fsp.readFile(f.path), data);
  t.equal(f.digests.sha256, crypto.createHash('sha256').update(data).digest('hex'));
  t.equal(f.digests.sha512, crypto.createHash('sha512').update(data).digest('hex'));
  await form.cleanup();
  t.same(await fsp.readdir(dir), [], 'cleanup removes the temp files');
});

t.test('hostile forms are refused with 400 or 413, and leave nothing behind', async (t) => {
  const dir = await withDir(t);
  const ok = field('name', 'x') + end;
  await t.test('not multipart', (t) =>
    refused(t, dir, ok, {}, 400, /an upload is a form: .*not multipart\/form-data/, 'application/json'),
  );
  await t.test('no boundary', (t) => refused(t, dir, ok, {}, 400, /with a boundary/, 'multipart/form-data'));
  await t.test('a boundary over 70 characters', (t) =>
    refused(t, dir, ok, {}, 400, /with a boundary/, `multipart/form-data; boundary=${'b'.repeat(71)}`),
  );
  await t.test('no Content-Type', (t) => refused(t, dir, ok, {}, 400, /with a boundary/, ''));
  await t.test('an unterminated file part', (t) =>
    refused(
      t,
      dir,
      file('content', 'a.whl', 'x'.repeat(500)).subarray(0, 300),
      {},
      400,
      /an upload is a form: Unexpected end of form/,
    ),
  );
  await t.test('no closing delimiter', (t) =>
    refused(t, dir, Buffer.concat([file('content', 'a.whl', 'abc')]), {}, 400, /Unexpected end of form/),
  );
  await t.test('a part header never ended', (t) =>
    refused(
      t,
      dir,
      `--${B}\r\nContent-Disposition: form-data; name="a"\r\n` + 'X-Junk: y\r\n'.repeat(30),
      {},
      400,
      /Unexpected end of form|Malformed/,
    ),
  );
  await t.test('too many files', (t) =>
    refused(
      t,
      dir,
      Buffer.concat([file('a', 'a', '1'), file('b', 'b', '2'), Buffer.from(end)]),
      { maxFiles: 1 },
      413,
      /more than 1 file part/,
    ),
  );
  await t.test('too many fields', (t) =>
    refused(
      t,
      dir,
      Array.from({ length: 12 }, (_, i) => field(`f${i}`, 'v')).join('') + end,
      { maxFields: 10 },
      413,
      /more than 10 fields/,
    ),
  );
  await t.test('a field over its cap', (t) =>
    refused(
      t,
      dir,
      field('description', 'd'.repeat(2000)) + end,
      { maxFieldBytes: 1000 },
      413,
      /"description" is over 1000 bytes/,
    ),
  );
  await t.test('fields over their total', (t) =>
    refused(
      t,
      dir,
      field('a', 'd'.repeat(800)) + field('b', 'd'.repeat(800)) + end,
      { maxFieldBytes: 1000, maxFieldBytesTotal: 1500 },
      413,
      /over 1500 bytes together/,
    ),
  );
  await t.test('a file over the cap: nothing kept', (t) =>
    refused(
      t,
      dir,
      Buffer.concat([file('content', 'big.whl', Buffer.alloc(5000)), Buffer.from(end)]),
      { maxFileBytes: 4096 },
      413,
      /"content" is over 4096 bytes/,
    ),
  );
  await t.test('a file over the cap after a good one', (t) =>
    refused(
      t,
      dir,
      Buffer.concat([file('sig', 'a.asc', 'ok'), file('content', 'big.whl', Buffer.alloc(5000)), Buffer.from(end)]),
      { maxFiles: 2, maxFileBytes: 4096 },
      413,
      /over 4096 bytes/,
    ),
  );
});

t.test("an error of the body stream itself (the runtime's 413) is thrown as it is, nothing kept", async (t) => {
  const dir = await withDir(t);
  const tooLarge = new HubError('payload_too_large', 'the request body may be at most 10 bytes');
  const body = new Readable({ read() {} });
  const p = readForm(body, TYPE, opts(dir));
  body.push(file('content', 'a.whl', 'x'.repeat(100)));
  setImmediate(() => body.destroy(tooLarge));
  await t.rejects(p, tooLarge);
  t.same(await fsp.readdir(dir), []);
  t.notOk(fs.existsSync(path.join(dir, 'hub-form-')));
});
