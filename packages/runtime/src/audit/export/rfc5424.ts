import os from 'node:os';
import { exportedRow, type ExportedRow } from './exported-row.js';

/** Structured-data id of hub's fields: the documentation enterprise number of RFC 5612 (no number is registered for hub). */
export const SD_ID = 'hub@32473';

/** PRINTUSASCII (33-126) only, at most `max` characters; NILVALUE when nothing is left. */
function header(v: string, max: number): string {
  const s = v.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return s === '' ? '-' : s;
}

/** A PARAM-VALUE: `"`, `\` and `]` escaped (RFC 5424 section 6.3.3). */
const paramValue = (v: string): string => v.replace(/["\\\]]/g, (c) => `\\${c}`);

const HOST = header(os.hostname(), 255);

/**
 * One audit row as an RFC 5424 message: severity warning for a refusal, notice otherwise; MSGID the action;
 * structured data naming the chain position and the row's fields; the message the row as JSON (UTF-8, after a BOM).
 */
export function syslogMessage(r: ExportedRow, o: { facility: number; appName: string }): string {
  const e = exportedRow(r);
  const severity = e.outcome === 'denied' ? 4 : 5;
  const params = Object.entries(e)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}="${paramValue(String(v))}"`)
    .join(' ');
  return `<${o.facility * 8 + severity}>1 ${e.time} ${HOST} ${header(o.appName, 48)} ${header(String(process.pid), 128)} ${header(e.action, 32)} [${SD_ID} ${params}] \ufeff${JSON.stringify(e)}`;
}

/** Octet-counting framing (RFC 6587 section 3.4.1): the message's length in bytes, a space, the message. */
export const octetCounted = (message: string): string => `${Buffer.byteLength(message)} ${message}`;
