/**
 * URL filtering and escaping for URL attributes (href, src, …) and CSS url(…), with the behaviour
 * of Go html/template's urlFilter / urlNormalizer / urlEscaper, reimplemented.
 */
import { type Escaper, FAILSAFE, stringify } from './escapers.js';

/** Raster image data URLs are allowed (Go rejects every `data:` URL; see README). */
const SAFE_DATA_IMAGE = /^data:image\/(png|gif|jpe?g|webp);base64,[A-Za-z0-9+/=\s]*$/i;

/** Relative URLs and http, https, mailto (plus raster `data:image/…;base64`) are safe. */
export function isSafeUrl(s: string): boolean {
  const colon = s.indexOf(':');
  if (colon === -1 || s.slice(0, colon).includes('/')) return true;
  const scheme = s.slice(0, colon).toLowerCase();
  if (scheme === 'http' || scheme === 'https' || scheme === 'mailto') return true;
  return SAFE_DATA_IMAGE.test(s.trim());
}

/** At the start of a URL: an unsafe scheme replaces the whole value with `#ZgotmplZ`. */
export const urlFilter: Escaper = (v) => {
  const s = stringify(v)[0];
  return isSafeUrl(s) ? s : `#${FAILSAFE}`;
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[!#$&*+,/:;=?@[\]]/;
const HEXCH = /[0-9a-fA-F]/;
const NEEDS_WORK = /[^A-Za-z0-9\-._~!#$&*+,/:;=?@[\]%]/;

/**
 * Percent-encodes `s` as UTF-8 bytes. `norm` keeps reserved characters and existing `%XX` escapes
 * (normalising a URL); otherwise everything but unreserved characters is encoded (a query value).
 */
export function processUrl(s: string, norm: boolean): string {
  if (norm && !NEEDS_WORK.test(s) && !/%(?![0-9a-fA-F]{2})/.test(s)) return s;
  let out = '';
  const bytes = Buffer.from(s, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    const c = String.fromCharCode(b);
    if (b < 0x80 && UNRESERVED.test(c)) out += c;
    else if (b < 0x80 && norm && RESERVED.test(c)) out += c;
    else if (c === '%' && norm && HEXCH.test(String.fromCharCode(bytes[i + 1] ?? 0)) && HEXCH.test(String.fromCharCode(bytes[i + 2] ?? 0))) out += c;
    else out += `%${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** Normalises a URL (spaces → %20, quotes encoded) keeping its structure. */
export const urlNormalizer: Escaper = (v) => processUrl(stringify(v)[0], true);
/** Encodes a query or fragment component. */
export const urlEscaper: Escaper = (v) => processUrl(stringify(v)[0], false);

const HTML_SPACE = /[\t\n\f\r ]/;

function filterSrcsetElement(part: string): string {
  let start = 0;
  while (start < part.length && HTML_SPACE.test(part[start] as string)) start++;
  let end = start;
  while (end < part.length && !HTML_SPACE.test(part[end] as string)) end++;
  const url = part.slice(start, end);
  const meta = part.slice(end);
  if (isSafeUrl(url) && /^[\t\n\f\r A-Za-z0-9]*$/.test(meta)) return part.slice(0, start) + processUrl(url, true) + meta;
  return `#${FAILSAFE}`;
}

/** A srcset value: each comma-separated candidate URL filtered and normalised. */
export const srcsetEscaper: Escaper = (v) => stringify(v)[0].split(',').map(filterSrcsetElement).join(',');
