/**
 * Go's `unicode` predicates and simple case mappings for one character (a code point as a JS
 * string), as Sprig's string helpers (xstrings, goutils) use them. Written from the documented
 * rules of Go's unicode package: categories Lu/Ll/Lt/L/N/Nd/P and the White_Space property; case
 * mappings are one character to one character (Go's simple mappings: `ß` stays `ß` in ToUpper).
 */

export const isUpper = (ch: string): boolean => /^\p{Lu}$/u.test(ch);
export const isLower = (ch: string): boolean => /^\p{Ll}$/u.test(ch);
export const isTitle = (ch: string): boolean => /^\p{Lt}$/u.test(ch);
export const isLetter = (ch: string): boolean => /^\p{L}$/u.test(ch);
export const isNumber = (ch: string): boolean => /^\p{N}$/u.test(ch);
export const isDigit = (ch: string): boolean => /^\p{Nd}$/u.test(ch);
export const isPunct = (ch: string): boolean => /^\p{P}$/u.test(ch);
/** unicode.IsSpace: the White_Space property (`\t \n \v \f \r`, space, U+0085, U+00A0, U+2000…). */
export const isSpace = (ch: string): boolean => /^\p{White_Space}$/u.test(ch);

function single(mapped: string, ch: string): string {
  const cp = mapped.codePointAt(0) as number;
  return mapped.length === (cp > 0xffff ? 2 : 1) ? mapped : ch;
}

/** unicode.ToUpper: the single-character upper case, or the character itself. */
export const toUpper = (ch: string): string => single(ch.toUpperCase(), ch);
/** unicode.ToLower: the single-character lower case, or the character itself. */
export const toLower = (ch: string): string => single(ch.toLowerCase(), ch);

const TITLE: Record<string, string> = {
  '\u01c4': '\u01c5', '\u01c5': '\u01c5', '\u01c6': '\u01c5',
  '\u01c7': '\u01c8', '\u01c8': '\u01c8', '\u01c9': '\u01c8',
  '\u01ca': '\u01cb', '\u01cb': '\u01cb', '\u01cc': '\u01cb',
  '\u01f1': '\u01f2', '\u01f2': '\u01f2', '\u01f3': '\u01f2',
};

/** unicode.ToTitle: upper case, except the Latin digraphs that have a title-case form (ǅ, ǈ, ǋ, ǲ). */
export const toTitle = (ch: string): string => TITLE[ch] ?? toUpper(ch);

const CJK_MIN = 0x3400;

/** xstrings' isAlphabet: a letter that is not a CJK ideograph. */
export function isAlphabet(ch: string): boolean {
  if (!isLetter(ch)) return false;
  const r = ch.codePointAt(0) as number;
  if (r < CJK_MIN) return true;
  if (r >= 0x4e00 && r <= 0x9fcc) return false;
  if (r >= 0x3400 && r <= 0x4d85) return false;
  if (r >= 0x20000 && r <= 0x2b81d) return false;
  return true;
}
