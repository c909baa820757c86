/**
 * Go time layouts ("2006-01-02 15:04:05"), written anew from the rules of Go's time.Format /
 * time.Parse. All times are formatted in UTC (JS Dates carry no zone; see README).
 */
import { EvalFailure } from './errors.js';

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
  'September', 'October', 'November', 'December'];
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Go's time.ANSIC layout, listmonk's default for `Date ""`. */
export const ANSIC = 'Mon Jan _2 15:04:05 2006';
/** Layout of Go's time.Time.String(). */
export const DEFAULT_TIME_LAYOUT = '2006-01-02 15:04:05.999999999 -0700 MST';
export const RFC3339NANO = '2006-01-02T15:04:05.999999999Z07:00';

/** A layout element: a literal, or a std code with its width for fractional seconds. */
type StdChunk = { std: string; frac?: { digits: number; trim: boolean } };
type Chunk = { lit: string } | StdChunk;

const isLower = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z';
const isDigitAt = (s: string, i: number): boolean => s[i] !== undefined && (s[i] as string) >= '0' && (s[i] as string) <= '9';

const PREFIXED: Array<[string, string, ((rest: string) => boolean)?]> = [
  ['January', 'January'], ['Jan', 'Jan', (r) => !isLower(r[0])], ['Monday', 'Monday'],
  ['Mon', 'Mon', (r) => !isLower(r[0])], ['MST', 'MST'], ['002', '002'], ['01', '01'], ['02', '02'],
  ['03', '03'], ['04', '04'], ['05', '05'], ['06', '06'], ['15', '15'], ['1', '1'], ['2006', '2006'],
  ['2', '2'], ['__2', '__2'], ['_2', '_2'], ['3', '3'], ['4', '4'], ['5', '5'], ['PM', 'PM'], ['pm', 'pm'],
  ['-07:00:00', '-07:00:00'], ['-070000', '-070000'], ['-07:00', '-07:00'], ['-0700', '-0700'], ['-07', '-07'],
  ['Z07:00:00', 'Z07:00:00'], ['Z070000', 'Z070000'], ['Z07:00', 'Z07:00'], ['Z0700', 'Z0700'], ['Z07', 'Z07'],
];

/** Recognises the std code starting at `i`, if any. */
function stdAt(layout: string, i: number): (StdChunk & { len: number }) | null {
  const c = layout[i];
  if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
    const ch = layout[i + 1];
    let j = i + 1;
    while (layout[j] === ch) j++;
    if (!isDigitAt(layout, j)) return { std: 'frac', frac: { digits: j - i - 1, trim: ch === '9' }, len: j - i };
  }
  if (layout.startsWith('_2006', i)) return null; // a literal '_' followed by the year
  for (const [text, std, ok] of PREFIXED) {
    if (layout.startsWith(text, i) && (!ok || ok(layout.slice(i + text.length)))) return { std, len: text.length };
  }
  return null;
}

const layoutCache = new Map<string, Chunk[]>();

/** Splits a Go layout into literal and std chunks (cached; layouts are few and reused). */
function chunks(layout: string): Chunk[] {
  const hit = layoutCache.get(layout);
  if (hit) return hit;
  const out: Chunk[] = [];
  let lit = '';
  for (let i = 0; i < layout.length; ) {
    const std = stdAt(layout, i);
    if (!std) {
      lit += layout[i++];
      continue;
    }
    if (lit) out.push({ lit });
    lit = '';
    out.push(std.frac ? { std: std.std, frac: std.frac } : { std: std.std });
    i += std.len;
  }
  if (lit) out.push({ lit });
  if (layoutCache.size < 256) layoutCache.set(layout, out);
  return out;
}

const pad = (n: number, w: number, ch = '0'): string => String(n).padStart(w, ch);

function yearDay(d: Date): number {
  return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1) + 0) / 86_400_000) + 1;
}

function fracText(ms: number, digits: number, trim: boolean): string {
  let f = (pad(ms, 3) + '000000').slice(0, Math.min(digits, 9)).padEnd(digits, '0');
  if (trim) f = f.replace(/0+$/, '');
  return f === '' ? '' : `.${f}`;
}

/** A fixed zone for formatting: offset east of UTC in seconds and its abbreviation (`CET`, `+03`). */
export interface TimeZone {
  offsetSec: number;
  name: string;
}

const UTC_ZONE: TimeZone = { offsetSec: 0, name: 'UTC' };

/** Go's numeric zone forms (`-0700`, `-07:00`, `-07`, `-07:00:00`, `Z07:00`…) for an offset. */
function formatOffset(std: string, offsetSec: number): string {
  if (std.startsWith('Z') && offsetSec === 0) return 'Z';
  const a = Math.abs(offsetSec);
  const hh = pad(Math.floor(a / 3600), 2);
  const mm = pad(Math.floor(a / 60) % 60, 2);
  const ss = pad(a % 60, 2);
  const sign = offsetSec < 0 ? '-' : '+';
  const form = std.startsWith('Z') ? `-${std.slice(1)}` : std;
  switch (form) {
    case '-07': return `${sign}${hh}`;
    case '-0700': return `${sign}${hh}${mm}`;
    case '-07:00': return `${sign}${hh}:${mm}`;
    case '-070000': return `${sign}${hh}${mm}${ss}`;
    case '-07:00:00': return `${sign}${hh}:${mm}:${ss}`;
  }
  return '';
}

function formatStd(d: Date, c: { std: string; frac?: { digits: number; trim: boolean } }, zone: TimeZone): string {
  const h = d.getUTCHours();
  switch (c.std) {
    case 'January': return MONTHS[d.getUTCMonth()] as string;
    case 'Jan': return (MONTHS[d.getUTCMonth()] as string).slice(0, 3);
    case '1': return String(d.getUTCMonth() + 1);
    case '01': return pad(d.getUTCMonth() + 1, 2);
    case 'Monday': return DAYS[d.getUTCDay()] as string;
    case 'Mon': return (DAYS[d.getUTCDay()] as string).slice(0, 3);
    case '2': return String(d.getUTCDate());
    case '_2': return pad(d.getUTCDate(), 2, ' ');
    case '02': return pad(d.getUTCDate(), 2);
    case '__2': return pad(yearDay(d), 3, ' ');
    case '002': return pad(yearDay(d), 3);
    case '15': return pad(h, 2);
    case '3': return String(h % 12 === 0 ? 12 : h % 12);
    case '03': return pad(h % 12 === 0 ? 12 : h % 12, 2);
    case '4': return String(d.getUTCMinutes());
    case '04': return pad(d.getUTCMinutes(), 2);
    case '5': return String(d.getUTCSeconds());
    case '05': return pad(d.getUTCSeconds(), 2);
    case '2006': return pad(d.getUTCFullYear(), 4);
    case '06': return pad(d.getUTCFullYear() % 100, 2);
    case 'PM': return h >= 12 ? 'PM' : 'AM';
    case 'pm': return h >= 12 ? 'pm' : 'am';
    case 'MST': return zone.name;
    case 'frac': return fracText(d.getUTCMilliseconds(), c.frac?.digits ?? 3, c.frac?.trim ?? false);
  }
  return formatOffset(c.std, zone.offsetSec);
}

/**
 * Formats `d` with a Go layout, in UTC or in `zone` (a fixed offset with its abbreviation, as
 * Sprig's dateInZone needs). An invalid Date formats as Go's zero time.
 */
export function formatTime(d: Date, layout: string, zone: TimeZone = UTC_ZONE): string {
  const base = Number.isNaN(d.getTime()) ? zeroTime() : d;
  const t = zone.offsetSec === 0 ? base : new Date(base.getTime() + zone.offsetSec * 1000);
  let out = '';
  for (const c of chunks(layout)) out += 'lit' in c ? c.lit : formatStd(t, c, zone);
  return out;
}

/** Go's time.Time{} (0001-01-01 00:00:00 UTC), what Sprig's toDate returns on bad input. */
export function zeroTime(): Date {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d;
}

/** Go's time.Time.String() form, e.g. `2024-03-05 10:20:30.5 +0000 UTC`. */
export function timeString(d: Date): string {
  return formatTime(d, DEFAULT_TIME_LAYOUT);
}

/** Builds a UTC date from fields; years 0–99 are taken literally (unlike Date.UTC). */
export function makeUtc(y: number, mon: number, day: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const d = new Date(0);
  d.setUTCFullYear(y, mon, day);
  d.setUTCHours(h, mi, s, ms);
  return d;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
};

/** Go's time.ParseDuration ("1h30m", "-1.5h", "300ms"); returns nanoseconds or null if malformed. */
export function parseDuration(s: string): number | null {
  const m = /^([-+]?)(.*)$/.exec(s) as RegExpExecArray;
  const body = m[2] as string;
  if (body === '0') return 0;
  if (body === '') return null;
  let total = 0;
  const re = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let last = 0;
  for (let part = re.exec(body); part; part = re.exec(body)) {
    total += Number(part[1]) * (DURATION_UNITS[part[2] as string] as number);
    last = re.lastIndex;
  }
  if (last !== body.length) return null;
  return m[1] === '-' ? -total : total;
}

/** `.Method` on a Date value: the time.Time methods templates commonly use. */
export function timeMethod(d: Date, name: string, args: unknown[]): unknown {
  const arg = (i: number): unknown => args[i];
  switch (name) {
    case 'Format': return formatTime(d, String(arg(0) ?? ''));
    case 'String': return timeString(d);
    case 'Year': return d.getUTCFullYear();
    case 'Month': return MONTHS[d.getUTCMonth()];
    case 'Day': return d.getUTCDate();
    case 'Hour': return d.getUTCHours();
    case 'Minute': return d.getUTCMinutes();
    case 'Second': return d.getUTCSeconds();
    case 'Nanosecond': return d.getUTCMilliseconds() * 1e6;
    case 'YearDay': return yearDay(d);
    case 'Weekday': return DAYS[d.getUTCDay()];
    case 'Unix': return Math.floor(d.getTime() / 1000);
    case 'UnixMilli': return d.getTime();
    case 'IsZero': return d.getTime() === zeroTime().getTime();
    case 'UTC': case 'Local': return d;
    case 'Add': return new Date(d.getTime() + Number(arg(0) ?? 0) / 1e6);
    case 'AddDate': return makeUtc(d.getUTCFullYear() + Number(arg(0) ?? 0), d.getUTCMonth() + Number(arg(1) ?? 0),
      d.getUTCDate() + Number(arg(2) ?? 0), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
    case 'Before': return arg(0) instanceof Date && d.getTime() < (arg(0) as Date).getTime();
    case 'After': return arg(0) instanceof Date && d.getTime() > (arg(0) as Date).getTime();
    case 'Equal': return arg(0) instanceof Date && d.getTime() === (arg(0) as Date).getTime();
  }
  throw new EvalFailure(`can't evaluate field ${name} in type time.Time`);
}

export { chunks as layoutChunks };
