/**
 * Sprig v3 date functions beyond sprig-more.ts: `dateInZone` (and `date_in_zone`), `htmlDateInZone`,
 * `duration`, `durationRound`, `ago`, `mustDateModify` (and `must_date_modify`, `date_modify`),
 * `mustToDate`. Zones are IANA names resolved through the ICU data built into Node (no file is
 * read); an unknown zone is UTC, as Sprig falls back to UTC; `Local` is UTC as everywhere in
 * Mailroom (README "Known differences" 8). Durations print as Go's time.Duration.String.
 * From Sprig's date.go and Go's time package; written anew.
 */
import { EvalFailure } from '../errors.js';
import { goQuote } from '../go-format.js';
import { asTime } from '../go-null.js';
import { parseTime } from '../go-time-parse.js';
import { formatTime, type TimeZone } from '../go-time.js';
import type { CallContext } from '../types.js';
import { goTypeName } from '../values.js';
import { str } from './conv.js';
import { def, type FuncTable } from './registry.js';
import { SPRIG_MORE, toTime } from './sprig-more.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const UTC: TimeZone = { offsetSec: 0, name: 'UTC' };
const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();
const NAME_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ', 'en-ZA'];

/** The ICU formatter for an IANA zone name, or null (UTC) for '', UTC, Local and unknown names. */
function zoneFormat(name: string): Intl.DateTimeFormat | null {
  if (name === '' || name === 'UTC' || name === 'Local') return null;
  const hit = zoneFormats.get(name);
  if (hit !== undefined) return hit;
  let fmt: Intl.DateTimeFormat | null = null;
  try {
    const f = new Intl.DateTimeFormat('en-US', {
      timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    const resolved = f.resolvedOptions().timeZone;
    // Go's LoadLocation is case-sensitive (a file name); ICU is not.
    if (resolved === name || resolved.toLowerCase() !== name.toLowerCase()) fmt = f;
  } catch {
    fmt = null;
  }
  if (zoneFormats.size < 512) zoneFormats.set(name, fmt);
  return fmt;
}

/** Go's numeric abbreviation for zones without a name in tzdata: `+04`, `+0530`. */
function numericName(offsetSec: number): string {
  const a = Math.abs(offsetSec);
  const h = String(Math.floor(a / 3600)).padStart(2, '0');
  const m = Math.floor(a / 60) % 60;
  return `${offsetSec < 0 ? '-' : '+'}${h}${m ? String(m).padStart(2, '0') : ''}`;
}

/** The abbreviation ICU knows for the zone at `d` (CET, EDT, AEST…), else Go's numeric form. */
function zoneName(name: string, d: Date, offsetSec: number): string {
  for (const locale of NAME_LOCALES) {
    const part = new Intl.DateTimeFormat(locale, { timeZone: name, timeZoneName: 'short' })
      .formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (/^[A-Z]{2,5}$/.test(part) && (offsetSec === 0 || (part !== 'GMT' && part !== 'UTC'))) return part;
  }
  return offsetSec === 0 ? 'UTC' : numericName(offsetSec);
}

/** The zone `name` at instant `d`: its offset and abbreviation (UTC when unknown). */
export function zoneAt(name: string, d: Date): TimeZone {
  const fmt = zoneFormat(name);
  if (!fmt || Number.isNaN(d.getTime())) return UTC;
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(d)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0,
    parts.minute ?? 0, parts.second ?? 0);
  const offsetSec = Math.round((wall - (d.getTime() - d.getUTCMilliseconds())) / 1000);
  return { offsetSec, name: zoneName(name, d, offsetSec) };
}

/** Sprig's dateInZone: a time (or unix seconds) formatted with a Go layout in an IANA zone. */
function dateInZone(c: CallContext, layout: unknown, date: unknown, zone: unknown): string {
  const t = toTime(c, date);
  return formatTime(t, str(layout), zoneAt(str(zone), t));
}

const NS = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const MAX_NS = 1n << 63n;

/** Go's time.ParseDuration: nanoseconds as a BigInt, or Go's error text. */
export function goParseDuration(orig: string): bigint | string {
  const invalid = `time: invalid duration ${goQuote(orig)}`;
  let s = orig;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return invalid;
  let d = 0n;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s) as RegExpExecArray;
    const [whole = '', intPart = '', fracPart] = m;
    if (!/^[0-9.]/.test(s) || (intPart === '' && (fracPart === undefined || fracPart === ''))) return invalid;
    s = s.slice(whole.length);
    let i = 0;
    while (i < s.length && !/[0-9.]/.test(s[i] as string)) i++;
    if (i === 0) return `time: missing unit in duration ${goQuote(orig)}`;
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = (NS as Record<string, bigint>)[u];
    if (unit === undefined) return `time: unknown unit ${goQuote(u)} in duration ${goQuote(orig)}`;
    const v = BigInt(intPart || '0');
    if (v > MAX_NS / unit) return invalid;
    let total = v * unit;
    if (fracPart) total += BigInt(Math.trunc(Number(`0.${fracPart}`) * Number(unit)));
    if (total > MAX_NS) return invalid;
    d += total;
    if (d > MAX_NS) return invalid;
  }
  if (neg) return -d;
  if (d > MAX_NS - 1n) return invalid;
  return d;
}

function fracDigits(v: bigint, prec: number): { frac: string; rest: bigint } {
  let digits = '';
  let u = v;
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = u % 10n;
    printed = printed || digit !== 0n;
    if (printed) digits = digit.toString() + digits;
    u /= 10n;
  }
  return { frac: printed ? `.${digits}` : '', rest: u };
}

/** Go's time.Duration.String: `1h2m3.5s`, `1.5ms`, `0s`. */
export function durationString(ns: bigint): string {
  const d = BigInt.asIntN(64, ns);
  const neg = d < 0n;
  const u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s';
    const [prec, unit] = u < 1_000n ? [0, 'ns'] : u < 1_000_000n ? [3, 'µs'] : [6, 'ms'];
    const { frac, rest } = fracDigits(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const { frac, rest } = fracDigits(u, 9);
    const secs = rest % 60n;
    let mins = rest / 60n;
    out = `${secs}${frac}s`;
    if (mins > 0n) {
      out = `${mins % 60n}m${out}`;
      mins /= 60n;
      if (mins > 0n) out = `${mins}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

const now = (c: CallContext): Date => (c.env.now ? c.env.now() : new Date());
const msToNs = (ms: number): bigint => BigInt(Math.trunc(ms)) * 1_000_000n;

/**
 * Sprig's duration: seconds (an integer or a numeric string) as a Go duration, `95` → `1m35s`.
 * (Sprig only reads int64 and strings, so in listmonk a plain number in a template gives `0s`.)
 */
function duration(v: unknown): string {
  let n = 0n;
  if (typeof v === 'string') n = /^[+-]?[0-9]+$/.test(v) ? BigInt(v) : 0n;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'bigint') n = v;
  return durationString(BigInt.asIntN(64, n * 1_000_000_000n));
}

/** Sprig's durationRound: the largest whole unit of a duration, `2h10m` → `2h`, 400 days → `1y`. */
function durationRound(c: CallContext, v: unknown): string {
  let d = 0n;
  if (typeof v === 'string') {
    const p = goParseDuration(v);
    d = typeof p === 'bigint' ? p : 0n;
  } else if (typeof v === 'number' && Number.isInteger(v)) d = BigInt(v);
  else if (typeof v === 'bigint') d = v;
  else if (asTime(v) !== null) d = msToNs(now(c).getTime() - (asTime(v) as Date).getTime());
  const u = d < 0n ? -d : d;
  const hour = 3_600_000_000_000n;
  const units: Array<[bigint, string]> = [[hour * 24n * 365n, 'y'], [hour * 24n * 30n, 'mo'], [hour * 24n, 'd'],
    [hour, 'h'], [60_000_000_000n, 'm'], [1_000_000_000n, 's']];
  for (const [size, suffix] of units) if (u > size) return `${u / size}${suffix}`;
  return '0s';
}

/** Sprig's ago: time since a date (or unix seconds), rounded to the second, as a Go duration. */
function ago(c: CallContext, v: unknown): string {
  const t = toTime(c, v);
  const ms = now(c).getTime() - t.getTime();
  const secs = Math.sign(ms) * Math.round(Math.abs(ms) / 1000);
  return durationString(BigInt(secs) * 1_000_000_000n);
}

/** A time.Time parameter: a Date or listmonk's null.Time (as its `.Time`, like sprig-more.ts). */
function requireTime(v: unknown, fn: string): Date {
  const t = asTime(v);
  if (t !== null) return t;
  throw new EvalFailure(`${fn}: wrong type for value; expected time.Time; got ${goTypeName(v)}`);
}

/** Sprig's mustDateModify: a date moved by a Go duration; a bad duration fails with Go's error. */
function mustDateModify(_c: CallContext, d: unknown, t: unknown): Date {
  const time = requireTime(t, 'mustDateModify');
  const ns = goParseDuration(str(d));
  if (typeof ns === 'string') throw new EvalFailure(ns);
  return new Date(time.getTime() + Number(ns / 1_000_000n));
}

/** Sprig's mustToDate: time.ParseInLocation with its error instead of the zero time. */
function mustToDate(_c: CallContext, layout: unknown, value: unknown): Date {
  const [l, v] = [str(layout), str(value)];
  const t = parseTime(l, v);
  if (!t) throw new EvalFailure(`parsing time ${goQuote(v)} as ${goQuote(l)}: cannot parse ${goQuote(v)}`);
  return t;
}

/** The Sprig date functions added here, by name. */
export const SPRIG_DATE: FuncTable = {
  dateInZone: def(dateInZone as F, 3),
  date_in_zone: def(dateInZone as F, 3),
  htmlDateInZone: def((c, d, z) => dateInZone(c, '2006-01-02', d, z), 2),
  date_modify: SPRIG_MORE.dateModify as FuncTable[string],
  mustDateModify: def(mustDateModify as F, 2),
  must_date_modify: def(mustDateModify as F, 2),
  mustToDate: def(mustToDate as F, 2),
  duration: def((_c, v) => duration(v), 1),
  durationRound: def(durationRound as F, 1),
  ago: def(ago as F, 1),
};
