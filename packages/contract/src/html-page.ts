/** How far past a BOM and leading white space a page's first tag is looked for. */
const SCAN_BYTES = 512;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0x0c;
const HTML_START = /^<(?:!doctype\s+html|html)\b/i;

/**
 * Does this start of a body look like an HTML page (an upstream's error or login page served with
 * 200 in place of the file)? A UTF-8 BOM and white space are skipped; then `<!doctype html` or
 * an `<html` tag, in any case, decides. Reads at most the first 512 bytes, so a whole body may be passed.
 */
export function looksLikeHtml(head: Buffer): boolean {
  const end = Math.min(head.length, SCAN_BYTES);
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < end && isSpace(head[i])) i++;
  return HTML_START.test(head.toString('latin1', i, Math.min(head.length, i + 32)));
}
