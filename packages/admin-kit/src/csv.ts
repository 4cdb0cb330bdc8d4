import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type Koa from 'koa';
import { errors } from '@hub/contract';
import { queryValue } from './query.js';

/**
 * One RFC 4180 record, CRLF-terminated: fields holding a comma, a double quote, CR or LF are quoted,
 * quotes doubled; null is the empty field (no value in these exports is an empty string). A text cell
 * that starts like a formula (= + - @ tab CR, OWASP's list) gets a leading `'`, so spreadsheets show it
 * as text instead of running it: anyone without a token can put one in a request path.
 */
export const csvRecord = (values: readonly unknown[]): string =>
  stringify([values], {
    record_delimiter: 'windows',
    escape_formulas: true,
    quoted_match: /[\r\n]/,
    cast: { boolean: String },
  });

/** A CSV export's `?format=`: `csv`, the default, or 400. */
export function checkCsvFormat(ctx: Koa.Context): void {
  if ((queryValue(ctx, 'format') ?? 'csv') !== 'csv') throw errors.badRequest('format must be csv');
}

/** Streams CSV records as a download named `filename`; a failure mid-stream cuts the connection. */
export function sendCsv(ctx: Koa.Context, filename: string, records: Iterable<string> | AsyncIterable<string>): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  const body = Readable.from(records);
  body.once('error', () => ctx.res.destroy());
  ctx.body = body;
}
