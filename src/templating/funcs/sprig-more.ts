/**
 * Sprig v3 number, date and encoding functions. Integer math is int64-like (`add 1.5 1` is 2,
 * `div 7 2` is 3, division by zero is an error as Go panics); dates are formatted in UTC.
 * Written anew from Sprig's documentation.
 */
import { EvalFailure } from '../errors.js';
import { fromGoJson } from '../go-json.js';
import { asTime } from '../go-null.js';
import { parseTime } from '../go-time-parse.js';
import { formatTime, parseDuration, zeroTime } from '../go-time.js';
import type { CallContext } from '../types.js';
import { goTypeName } from '../values.js';
import { str, toFloat64, toInt64 } from './conv.js';
import { def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

function intDiv(a: unknown, b: unknown, op: 'div' | 'mod'): number {
  const [x, y] = [toInt64(a), toInt64(b)];
  if (y === 0) throw new EvalFailure('runtime error: integer divide by zero');
  return op === 'div' ? Math.trunc(x / y) : x % y;
}

/** Sprig's round: half away from zero at `roundOn` (default .5) of the scaled fraction. */
function round(_c: CallContext, a: unknown, p: unknown, rOpt?: unknown): number {
  const roundOn = rOpt === undefined ? 0.5 : toFloat64(rOpt);
  const pow = 10 ** toInt64(p);
  const digit = pow * toFloat64(a);
  const frac = digit - Math.trunc(digit);
  return (frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)) / pow;
}

const now = (c: CallContext): Date => (c.env.now ? c.env.now() : new Date());

/**
 * A time argument as Sprig's `date` accepts it: Date (or listmonk's null.Time, as its `.Time`), or unix seconds. ISO-8601 strings are also
 * parsed (Sprig would silently use the current time); anything else is the current time.
 */
export function toTime(c: CallContext, v: unknown): Date {
  const t = asTime(v);
  if (t !== null) return t;
  if (typeof v === 'number') return new Date(Math.trunc(v) * 1000);
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) {
    const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return now(c);
}

function requireTime(v: unknown, fn: string): Date {
  const t = asTime(v);
  if (t !== null) return t;
  throw new EvalFailure(`${fn}: wrong type for value; expected time.Time; got ${goTypeName(v)}`);
}

function b64dec(_c: CallContext, v: unknown): string {
  const s = str(v);
  const bad = /[^A-Za-z0-9+/=]/.exec(s);
  if (bad) return `illegal base64 data at input byte ${bad.index}`;
  const pad = s.indexOf('=');
  if (s.length % 4 !== 0 || (pad !== -1 && (pad < s.length - 2 || /[^=]/.test(s.slice(pad))))) {
    return `illegal base64 data at input byte ${pad !== -1 ? pad : s.length - (s.length % 4)}`;
  }
  return Buffer.from(s, 'base64').toString('utf8');
}

const reduceInt = (init: number, fn: (a: number, b: number) => number): F =>
  (_c, ...a) => a.reduce<number>((acc, x) => fn(acc, toInt64(x)), init);
const reduceFloat = (fn: (a: number, b: number) => number): F =>
  (_c, first, ...a) => a.reduce<number>((acc, x) => fn(acc, toFloat64(x)), toFloat64(first));

/** Sprig number, date and encoding functions by name. */
export const SPRIG_MORE: FuncTable = {
  add: def(reduceInt(0, (a, b) => a + b), 0, Infinity),
  add1: def((_c, a) => toInt64(a) + 1, 1),
  sub: def((_c, a, b) => toInt64(a) - toInt64(b), 2),
  mul: def(reduceInt(1, (a, b) => a * b), 0, Infinity),
  div: def((_c, a, b) => intDiv(a, b, 'div'), 2),
  mod: def((_c, a, b) => intDiv(a, b, 'mod'), 2),
  max: def((_c, a, ...r) => r.reduce<number>((m, x) => Math.max(m, toInt64(x)), toInt64(a)), 1, Infinity),
  min: def((_c, a, ...r) => r.reduce<number>((m, x) => Math.min(m, toInt64(x)), toInt64(a)), 1, Infinity),
  maxf: def(reduceFloat(Math.max), 1, Infinity),
  minf: def(reduceFloat(Math.min), 1, Infinity),
  round: def(round as F, 2, 3),
  floor: def((_c, a) => Math.floor(toFloat64(a)), 1),
  ceil: def((_c, a) => Math.ceil(toFloat64(a)), 1),
  int: def((_c, a) => toInt64(a), 1),
  int64: def((_c, a) => toInt64(a), 1),
  float64: def((_c, a) => toFloat64(a), 1),
  atoi: def((_c, a) => (/^[+-]?\d+$/.test(str(a)) ? Number(str(a)) : 0), 1),
  now: def((c) => now(c), 0),
  date: def((c, layout, t) => formatTime(toTime(c, t), str(layout)), 2),
  htmlDate: def((c, t) => formatTime(toTime(c, t), '2006-01-02'), 1),
  dateModify: def((_c, d, t) => {
    const time = requireTime(t, 'dateModify');
    const ns = parseDuration(str(d));
    return ns === null ? time : new Date(time.getTime() + ns / 1e6);
  }, 2),
  toDate: def((_c, layout, s) => parseTime(str(layout), str(s)) ?? zeroTime(), 2),
  unixEpoch: def((_c, t) => String(Math.floor(requireTime(t, 'unixEpoch').getTime() / 1000)), 1),
  b64enc: def((_c, s) => Buffer.from(str(s), 'utf8').toString('base64'), 1),
  b64dec: def(b64dec as F, 1),
  fromJson: def((_c, s) => fromGoJson(str(s)), 1),
  mustFromJson: def((_c, s) => fromGoJson(str(s)), 1),
};
