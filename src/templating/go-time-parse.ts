/**
 * Go's time.Parse for the layouts of go-time.ts (written anew from Go's documented rules):
 * used by Sprig's `toDate`. Zone abbreviations other than UTC/GMT/Z are read as UTC.
 */
import { DAYS, layoutChunks, makeUtc, MONTHS } from './go-time.js';

interface Fields {
  year: number; month: number; day: number; hour: number; min: number; sec: number; ms: number;
  pm: boolean | null; offsetMin: number;
}

/** Reads 1–`max` digits (exactly `min` digits at least). */
function num(v: string, at: number, min: number, max: number): [number, number] | null {
  let j = at;
  while (j < v.length && j - at < max && v[j]! >= '0' && v[j]! <= '9') j++;
  return j - at < min ? null : [Number(v.slice(at, j)), j];
}

function lookupName(v: string, at: number, names: string[], short: boolean): [number, number] | null {
  for (let i = 0; i < names.length; i++) {
    const n = short ? (names[i] as string).slice(0, 3) : (names[i] as string);
    if (v.slice(at, at + n.length).toLowerCase() === n.toLowerCase()) return [i, at + n.length];
  }
  return null;
}

/** Parses a numeric zone offset like +05:30, +0530, +05, or Z when the layout allows it. */
function zone(v: string, at: number, std: string, f: Fields): number | null {
  if (std.startsWith('Z') && v[at] === 'Z') return at + 1;
  const sign = v[at];
  if (sign !== '+' && sign !== '-') return null;
  const colon = std.includes(':');
  const hh = num(v, at + 1, 2, 2);
  if (!hh) return null;
  let j = hh[1];
  let mm = 0;
  if (!std.endsWith('07')) {
    if (colon && v[j++] !== ':') return null;
    const m = num(v, j, 2, 2);
    if (!m) return null;
    [mm, j] = m;
    if (std.length >= 9 || std.endsWith('0000')) {
      if (colon && v[j++] !== ':') return null;
      const s = num(v, j, 2, 2);
      if (!s) return null;
      j = s[1];
    }
  }
  f.offsetMin = (sign === '-' ? -1 : 1) * (hh[0] * 60 + mm);
  return j;
}

function fraction(v: string, at: number, f: Fields): number {
  if ((v[at] === '.' || v[at] === ',') && v[at + 1] !== undefined && v[at + 1]! >= '0' && v[at + 1]! <= '9') {
    const n = num(v, at + 1, 1, 9) as [number, number];
    f.ms = Math.floor(Number(`0.${v.slice(at + 1, n[1])}`) * 1000);
    return n[1];
  }
  return at;
}

/** Applies one std chunk; returns the new offset in `v` or null when the value does not match. */
function parseStd(v: string, at: number, std: string, f: Fields, nextIsFrac: boolean): number | null {
  const set = (r: [number, number] | null, apply: (n: number) => boolean): number | null =>
    r && apply(r[0]) ? r[1] : null;
  switch (std) {
    case 'January': case 'Jan': return set(lookupName(v, at, MONTHS, std === 'Jan'), (n) => ((f.month = n + 1), true));
    case 'Monday': case 'Mon': return set(lookupName(v, at, DAYS, std === 'Mon'), () => true);
    case '1': case '01': return set(num(v, at, std.length, 2), (n) => ((f.month = n), n >= 1 && n <= 12));
    case '2': case '02': return set(num(v, at, std.length, 2), (n) => ((f.day = n), n >= 1 && n <= 31));
    case '_2': return set(num(v, v[at] === ' ' ? at + 1 : at, 1, 2), (n) => ((f.day = n), n >= 1 && n <= 31));
    case '002': case '__2': return set(num(v, at, std === '002' ? 3 : 1, 3), () => true);
    case '15': return set(num(v, at, 1, 2), (n) => ((f.hour = n), n < 24));
    case '3': case '03': return set(num(v, at, std.length, 2), (n) => ((f.hour = n), n >= 1 && n <= 12));
    case '4': case '04': return set(num(v, at, std.length, 2), (n) => ((f.min = n), n < 60));
    case '5': case '05': {
      const end = set(num(v, at, std.length, 2), (n) => ((f.sec = n), n < 60));
      return end === null || nextIsFrac ? end : fraction(v, end, f);
    }
    case '2006': return set(num(v, at, 4, 4), (n) => ((f.year = n), true));
    case '06': return set(num(v, at, 2, 2), (n) => ((f.year = n >= 69 ? 1900 + n : 2000 + n), true));
    case 'PM': case 'pm': {
      const s = v.slice(at, at + 2).toUpperCase();
      if (s !== 'AM' && s !== 'PM') return null;
      f.pm = s === 'PM';
      return at + 2;
    }
    case 'MST': {
      const m = /^(UTC|GMT|[A-Z]{3,5})/.exec(v.slice(at));
      return m ? at + (m[0] as string).length : null;
    }
    case 'frac': return fraction(v, at, f);
  }
  return zone(v, at, std, f);
}

/**
 * Parses `value` with a Go layout, as time.Parse does (UTC unless the value carries an offset).
 * Returns null when the value does not match the layout or a field is out of range.
 */
export function parseTime(layout: string, value: string): Date | null {
  const f: Fields = { year: 0, month: 1, day: 1, hour: 0, min: 0, sec: 0, ms: 0, pm: null, offsetMin: 0 };
  const cs = layoutChunks(layout);
  let at = 0;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if ('lit' in c) {
      if (!value.startsWith(c.lit, at)) return null;
      at += c.lit.length;
      continue;
    }
    const next = cs[i + 1];
    const r = parseStd(value, at, c.std, f, next !== undefined && 'std' in next && next.std === 'frac');
    if (r === null) return null;
    at = r;
  }
  if (at !== value.length) return null;
  if (f.pm !== null) f.hour = (f.hour % 12) + (f.pm ? 12 : 0);
  const d = makeUtc(f.year, f.month - 1, f.day, f.hour, f.min, f.sec, f.ms);
  if (d.getUTCDate() !== f.day) return null; // e.g. February 30: Go reports "day out of range"
  return new Date(d.getTime() - f.offsetMin * 60_000);
}
