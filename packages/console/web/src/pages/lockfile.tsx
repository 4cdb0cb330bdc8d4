import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { Alert, Badge, errorText } from '../ui.tsx';
import type { ActionAnswer } from '../action-types.ts';
import { RegistrySelect } from './registry-select.tsx';

type Answer = ActionAnswer<'lockfile_check'>;
type Entry = Answer['entries'][number];

/** The console reads at most this much of a dropped file; the server has its own limit. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

const badge = (e: Entry) => (e.status === 'held' || e.status === 'fetchable' ? 'ok' : e.installable ? 'warn' : 'bad');
const detail = (e: Entry) =>
  [e.effect && `effect ${e.effect}`, e.until && `until ${e.until}`, e.reason].filter(Boolean).join('; ');

/** Drop or paste a lockfile and see, per entry, whether an install through hub gets it now (POST /api/v1/admin/lockfile/check). */
export function LockfilePage() {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState('');
  const [registry, setRegistry] = useState('');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const take = (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_FILE_BYTES) return setError(`${f.name} is larger than ${MAX_FILE_BYTES} bytes`);
    f.text().then(
      (t) => {
        setText(t);
        setFileName(f.name);
        setError(null);
      },
      (e: unknown) => setError(errorText(e)),
    );
  };
  const check = (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    call('lockfile_check', {
      body: {
        lockfile: text,
        ...(fileName.trim() ? { file_name: fileName.trim() } : {}),
        ...(registry ? { registry } : {}),
      },
    })
      .then(setAnswer, (err: unknown) => {
        setAnswer(null);
        setError(errorText(err));
      })
      .finally(() => setBusy(false));
  };
  return (
    <>
      <h1>Lockfile check</h1>
      <p>
        package-lock.json, pnpm-lock.yaml, yarn.lock, Cargo.lock, go.sum, Gemfile.lock, requirements.txt with hashes,
        poetry.lock, uv.lock or packages.lock.json: whether each entry installs through hub now.
      </p>
      <form
        class={`lockfile-drop${over ? ' over' : ''}`}
        aria-label="Check a lockfile"
        onSubmit={check}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          take(e.dataTransfer?.files[0]);
        }}
      >
        <label for="lockfile-file">Drop a lockfile here, or choose one</label>
        <input id="lockfile-file" type="file" onChange={(e) => take(e.currentTarget.files?.[0])} />
        <label for="lockfile-text">Or paste it</label>
        <textarea id="lockfile-text" rows={10} required value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <label for="lockfile-name">File name (tells the format)</label>
        <input
          id="lockfile-name"
          value={fileName}
          placeholder="package-lock.json"
          onInput={(e) => setFileName(e.currentTarget.value)}
        />
        <RegistrySelect
          id="lockfile-registry"
          value={registry}
          onChange={setRegistry}
          allowAll
          allLabel="The only one of the lockfile's type"
        />
        <button type="submit" disabled={busy || !text}>
          {busy ? 'Checking…' : 'Check'}
        </button>
      </form>
      <Alert
        error={error}
        ok={
          answer
            ? `${answer.format}, registry ${answer.registry ?? '(none)'}: ${answer.installable ? 'every entry can be installed' : 'some entries cannot be installed'}.`
            : null
        }
      />
      {answer && (
        <section aria-labelledby="lockfile-result-h">
          <h2 id="lockfile-result-h">
            {answer.entries.length} entries:{' '}
            {Object.entries(answer.counts)
              .map(([s, n]) => `${n} ${s}`)
              .join(', ')}
          </h2>
          <div class="scroll">
            <table>
              <caption class="sr-only">Lockfile entries</caption>
              <thead>
                <tr>
                  <th scope="col">Package</th>
                  <th scope="col">Version</th>
                  <th scope="col">Status</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {answer.entries.map((e) => (
                  <tr key={`${e.name}@${e.version}`} data-entry={e.name}>
                    <th scope="row">{e.name}</th>
                    <td>{e.version}</td>
                    <td>
                      <Badge kind={badge(e)}>{e.status}</Badge>
                    </td>
                    <td>{detail(e)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
