import crypto from 'node:crypto';
import fs from 'node:fs';
import t from 'tap';
import { isHubError } from '@hub/contract';
import { readPublishBody } from '../src/publish-body.js';

/** The streaming reader of a packument PUT (issue 26, medium 5): the same document JSON.parse reads, the tarball to a file. */

/** `text` in chunks of `size` bytes: every boundary the socket could cut at. */
async function* chunks(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

const opts = (dir: string) => ({ maxDocumentBytes: 1024 * 1024, dir });
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
    return null;
  } catch (e) {
    if (!isHubError(e)) throw e;
    return { status: e.status, message: e.message };
  }
};

t.test('reads what JSON.parse reads, at every chunk size', async (t) => {
  const dir = t.testdir();
  const doc = {
    _id: '@acme/x',
    name: '@acme/x',
    'dist-tags': { latest: '1.0.0' },
    versions: {
      '1.0.0': {
        name: '@acme/x',
        version: '1.0.0',
        readme: 'é ü \u2603 "quoted" \\ back\nslash \ud83d\ude00',
        n: [1, -2.5e3, 0, true, false, null, [], {}, [[]]],
      },
    },
    access: null,
    empty: '',
  };
  const text = JSON.stringify(doc, null, 1);
  // `__proto__` as a key is an own property, as JSON.parse makes it, never the prototype.
  const expected = JSON.parse(JSON.stringify(doc).replace('"n"', '"__proto__":{"polluted":true},"n"')) as unknown;
  for (const size of [1, 2, 3, 7, 64, 100_000]) {
    const body = await readPublishBody(chunks(JSON.stringify(expected), size), opts(dir));
    t.same(body.doc, expected, `chunks of ${size}`);
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    t.equal(body.attachments.size, 0);
  }
  t.same((await readPublishBody(chunks(text, 5), opts(dir))).doc, JSON.parse(text), 'indented JSON');
  t.same(
    (await readPublishBody(chunks(' [1, "a", {"b": []}] \n', 1), opts(dir))).doc,
    [1, 'a', { b: [] }],
    'any JSON value',
  );
});

t.test('the attachment is decoded to a file while hashed, across chunk boundaries and \\/ escapes', async (t) => {
  const dir = t.testdir();
  for (const n of [0, 1, 2, 3, 1000, 65_537]) {
    const bytes = crypto.randomBytes(n);
    const b64 = bytes.toString('base64');
    // JSON may escape "/" as "\/": a stringifier that does is still sending base64.
    const text = `{"name":"x","_attachments":{"x-1.0.0.tgz":{"content_type":"application/octet-stream","data":"${b64.replaceAll('/', '\\/')}","length":${n}}},"after":1}`;
    for (const size of [1, 5, 4096]) {
      if (n > 2000 && size < 4096) continue;
      const body = await readPublishBody(chunks(text, size), opts(dir));
      const att = body.attachments.get('x-1.0.0.tgz');
      if (n === 0) t.equal(att, undefined, 'empty data spools nothing');
      else {
        t.same(fs.readFileSync(att!.file), bytes, `${n} bytes in chunks of ${size}`);
        t.equal(att!.size, n);
        t.equal(att!.sha512, crypto.createHash('sha512').update(bytes).digest('hex'));
        t.equal(att!.sha1, crypto.createHash('sha1').update(bytes).digest('hex'));
      }
      t.same(
        body.doc,
        {
          name: 'x',
          _attachments: { 'x-1.0.0.tgz': { content_type: 'application/octet-stream', data: '', length: n } },
          after: 1,
        },
        'the document keeps everything but the data',
      );
      await body.cleanup();
      if (att) t.notOk(fs.existsSync(att.file), 'cleanup removes the file');
    }
  }
  t.same(fs.readdirSync(dir), [], 'nothing left behind');
});

t.test('refusals: 400 for broken JSON or base64, 413 past the document cap; nothing left on disk', async (t) => {
  const dir = t.testdir();
  const data = crypto.randomBytes(3000).toString('base64');
  const withData = (d: string) => `{"_attachments":{"a.tgz":{"data":"${d}"}}}`;
  const cases: Array<[string, string, number, RegExp]> = [
    ['a body cut in the middle of the data', withData(data).slice(0, 2000), 400, /ended before/],
    ['a body cut after the data', withData(data).slice(0, -2), 400, /ended before/],
    ['base64 cut to a partial quartet', withData(data.slice(0, -1)), 400, /truncated/],
    ['a character outside the alphabet', withData(`${data.slice(0, 100)}*${data.slice(101)}`), 400, /not base64/],
    ['padding in the middle', withData(`AAA=${data}`), 400, /after its = padding/],
    ['three = of padding', withData('AA==='), 400, /more than two/],
    ['an escape other than \\/', withData(`AA\\nA`), 400, /plain base64/],
    [
      'two attachments',
      '{"_attachments":{"a.tgz":{"data":"AAAA"},"b.tgz":{"data":"AAAA"}}}',
      400,
      /exactly one tarball/,
    ],
    ['not JSON', '<html>', 400, /not JSON/],
    ['a missing colon', '{"a" 1}', 400, /not JSON/],
    ['a trailing comma', '{"a":1,}', 400, /not JSON/],
    ['a bad literal', '{"a":tru}', 400, /not JSON/],
    ['a bad escape in a kept string', '{"a":"\\x"}', 400, /not JSON/],
    ['two documents', '{} {}', 400, /more follows/],
    ['deep nesting', '['.repeat(100) + ']'.repeat(100), 400, /nests deeper/],
    ['a document over the cap', `{"readme":"${'x'.repeat(2 * 1024 * 1024)}"}`, 413, /at most 1048576 bytes/],
  ];
  for (const [what, text, status, message] of cases) {
    const r = await refusal(readPublishBody(chunks(text, 777), opts(dir)));
    t.equal(r?.status, status, what);
    t.match(r?.message, message, `${what}: ${r?.message}`);
  }
  t.same(fs.readdirSync(dir), [], 'no temp file survives a refusal');
  const big = await readPublishBody(
    chunks(withData(crypto.randomBytes(3 * 1024 * 1024).toString('base64')), 65536),
    opts(dir),
  );
  t.equal(big.attachments.get('a.tgz')?.size, 3 * 1024 * 1024, 'the data does not count toward the document cap');
  await big.cleanup();
});
