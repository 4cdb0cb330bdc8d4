import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { AuditExportConfig } from '../../config/schema.js';
import { exportedRow, type ExportedRow } from './exported-row.js';
import { octetCounted, syslogMessage } from './rfc5424.js';

/** Where exported rows go. `send` resolves once the rows are handed to the receiver (written to the socket or file). */
export interface AuditSink {
  send(rows: readonly ExportedRow[]): Promise<void>;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;
const SEND_TIMEOUT_MS = 30_000;

/** `host:port` or `[v6]:port`. */
function hostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(i + 1)) };
}

/**
 * RFC 5424 over TCP with octet-counting framing (RFC 6587), or over TLS (RFC 5425) checked against `tls_ca_file`.
 * One connection, opened on the first send and again after any error.
 */
export function syslogSink(x: AuditExportConfig): AuditSink {
  const { host, port } = hostPort(x.address!);
  const ca = x.tls_ca_file === undefined ? undefined : fs.readFileSync(x.tls_ca_file);
  let socket: net.Socket | undefined;
  let failure: Error | undefined;

  const connect = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = ca
        ? tls.connect({ host, port, ca, servername: net.isIP(host) ? undefined : host })
        : net.connect({ host, port });
      const timer = setTimeout(
        () => s.destroy(new Error(`syslog receiver ${x.address} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
        CONNECT_TIMEOUT_MS,
      );
      s.once(ca ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });

  return {
    async send(rows) {
      if (!socket || socket.destroyed) {
        const s = await connect();
        failure = undefined;
        // A receiver that closes or fails makes the next send reconnect (and this one reject).
        s.on('error', (e) => ((failure = e), s.destroy()));
        s.on('close', () => (failure ??= new Error(`syslog receiver ${x.address} closed the connection`)));
        // Receivers do not answer; anything they send is read and dropped.
        s.on('data', () => {});
        socket = s;
      }
      const s = socket;
      const text = rows
        .map((r) => octetCounted(syslogMessage(r, { facility: x.facility, appName: x.app_name })))
        .join('');
      // A receiver that stops reading fills the socket's buffers: give up on it rather than wait for ever.
      const stalled = setTimeout(
        () => s.destroy(new Error(`syslog receiver ${x.address} took no data for ${SEND_TIMEOUT_MS / 1000} s`)),
        SEND_TIMEOUT_MS,
      );
      await new Promise<void>((resolve, reject) => s.write(text, (e) => (e ? reject(e) : resolve()))).finally(() =>
        clearTimeout(stalled),
      );
      if (failure || s.destroyed) throw failure ?? new Error(`syslog receiver ${x.address} closed the connection`);
    },
    async close() {
      const s = socket;
      socket = undefined;
      if (!s || s.destroyed) return;
      // A receiver that does not read gets its connection cut rather than holding up the stop.
      const cut = setTimeout(() => s.destroy(), CONNECT_TIMEOUT_MS);
      await new Promise<void>((resolve) => s.end(resolve)).finally(() => clearTimeout(cut));
    },
  };
}

/** JSON lines appended to a file (for a SIEM's file collector); each batch in one write. */
export function jsonlSink(x: AuditExportConfig): AuditSink {
  return {
    async send(rows) {
      await fs.promises.appendFile(x.path!, rows.map((r) => `${JSON.stringify(exportedRow(r))}\n`).join(''), {
        mode: 0o640,
      });
    },
    async close() {},
  };
}

export const openSink = (x: AuditExportConfig): AuditSink => (x.type === 'syslog' ? syslogSink(x) : jsonlSink(x));
