import { parse } from 'csv-parse/sync';

/** A CSV export read back into records of fields (RFC 4180: quotes honoured, CRLF or LF), for asserting on it. */
export const parseCsv = (text: string): string[][] => parse(text, { relax_column_count: true });
