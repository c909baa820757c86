/**
 * Sprig v3's float arithmetic with shopspring/decimal (`addf`, `add1f`, `subf`, `mulf`, `divf`): each
 * operand becomes the shortest decimal that round-trips its float64 (decimal.NewFromFloat), sums and
 * products are exact, a quotient is rounded half away from zero at 16 decimal places
 * (decimal.DivisionPrecision), and the result is the float64 nearest to the exact decimal. So
 * `addf 0.1 0.2` is 0.3, not 0.30000000000000004. Also `seq`, `toDecimal`, `randInt`, `biggest`.
 * Decimals are BigInt coefficient × 10^exponent: exact by construction, no precision setting.
 * From Sprig's numeric.go and functions.go and shopspring/decimal 1.4; written anew.
 */
import { EvalFailure } from '../errors.js';
import { formatNumberV } from '../go-number.js';
import type { CallContext } from '../types.js';
import { str, toFloat64, toInt64 } from './conv.js';
import { checkSize, def, type FuncTable } from './registry.js';
import { SPRIG_MORE } from './sprig-more.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

/** A decimal number: coef × 10^exp. */
interface Dec {
  coef: bigint;
  exp: number;
}

const DIVISION_PRECISION = 16;

/** decimal.NewFromFloat: the shortest decimal that reads back as `x`; NaN and ±Inf panic as in Go. */
export function decFromFloat(x: number): Dec {
  if (!Number.isFinite(x)) {
    throw new EvalFailure(`Cannot create a Decimal from ${Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'}`);
  }
  if (x === 0) return { coef: 0n, exp: 0 };
  // toExponential() without an argument gives the shortest round-tripping digits, like Go's
  // strconv.FormatFloat(x, 'e', -1, 64), which NewFromFloat's shortest rounding matches.
  const s = x.toExponential();
  const e = s.indexOf('e');
  const dot = s.indexOf('.');
  const digits = dot === -1 ? s.slice(0, e) : s.slice(0, dot) + s.slice(dot + 1, e);
  const fracLen = dot === -1 ? 0 : e - dot - 1;
  const n = Number(digits);
  return { coef: Number.isSafeInteger(n) ? BigInt(n) : BigInt(digits), exp: Number(s.slice(e + 1)) - fracLen };
}

const POW10: bigint[] = Array.from({ length: 64 }, (_x, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.exp === b.exp) return [a.coef, b.coef, a.exp];
  if (a.exp > b.exp) return [a.coef * pow10(a.exp - b.exp), b.coef, b.exp];
  return [a.coef, b.coef * pow10(b.exp - a.exp), a.exp];
}

export const decAdd = (a: Dec, b: Dec): Dec => {
  const [x, y, exp] = align(a, b);
  return { coef: x + y, exp };
};
export const decSub = (a: Dec, b: Dec): Dec => decAdd(a, { coef: -b.coef, exp: b.exp });
export const decMul = (a: Dec, b: Dec): Dec => ({ coef: a.coef * b.coef, exp: a.exp + b.exp });

/** Decimal.Div: the quotient truncated at 16 decimal places, then rounded half away from zero. */
export function decDiv(a: Dec, b: Dec): Dec {
  if (b.coef === 0n) throw new EvalFailure('decimal division by 0');
  // a/b = (a.coef × 10^(a.exp − b.exp + 16)) / b.coef × 10^-16
  const shift = a.exp - b.exp + DIVISION_PRECISION;
  let num = a.coef;
  let den = b.coef;
  if (shift >= 0) num *= pow10(shift);
  else den *= pow10(-shift);
  let q = num / den;
  const r = num % den;
  const abs = (v: bigint): bigint => (v < 0n ? -v : v);
  if (2n * abs(r) >= abs(den)) q += (num < 0n) !== (den < 0n) ? -1n : 1n;
  return { coef: q, exp: -DIVISION_PRECISION };
}

const EXACT_POW10 = Array.from({ length: 23 }, (_x, i) => 10 ** i);

/**
 * Decimal.Float64: the float64 nearest to the exact decimal. A coefficient below 2^53 with
 * |exp| ≤ 22 takes one correctly rounded multiplication or division (10^k is exact for k ≤ 22);
 * anything else goes through JS's correctly rounded string parsing.
 */
export function decToFloat(d: Dec): number {
  if (d.coef >= -9007199254740991n && d.coef <= 9007199254740991n && d.exp >= -22 && d.exp <= 22) {
    const c = Number(d.coef);
    return d.exp >= 0 ? c * (EXACT_POW10[d.exp] as number) : c / (EXACT_POW10[-d.exp] as number);
  }
  return Number(`${d.coef}e${d.exp}`);
}

type Op = (a: Dec, b: Dec) => Dec;

/** Sprig's execDecimalOp: fold the operands with `op` exactly, one float64 at the end. */
function decimalOp(c: CallContext, first: unknown, rest: unknown[], op: Op): number {
  let acc = decFromFloat(toFloat64(first));
  // Each operand adds at most ~17 digits (plus exponent alignment): charged per operand.
  c.charge(rest.length);
  for (const x of rest) {
    acc = op(acc, decFromFloat(toFloat64(x)));
  }
  return decToFloat(acc);
}

/** Go's untilStep, refusing lists longer than the step budget. */
function untilStep(c: CallContext, start: number, stop: number, step: number): number[] {
  if (stop < start ? step >= 0 : step <= 0 || stop === start) return [];
  const n = Math.ceil((stop - start) / step);
  if (n > c.limits.maxSteps) throw new EvalFailure(`seq: ${n} elements exceed the step limit`, true);
  c.charge(n);
  return Array.from({ length: n }, (_x, i) => start + i * step);
}

/** Sprig's seq: like GNU seq — `seq 5`, `seq 2 5`, `seq 0 2 10`, counting down when end < start. */
function seq(c: CallContext, ...params: unknown[]): string {
  const p = params.map((x) => toInt64(x));
  let list: number[];
  switch (p.length) {
    case 1: {
      const [end = 0] = p;
      const inc = end < 1 ? -1 : 1;
      list = untilStep(c, 1, end + inc, inc);
      break;
    }
    case 2: {
      const [start = 0, end = 0] = p;
      const step = end < start ? -1 : 1;
      list = untilStep(c, start, end + step, step);
      break;
    }
    case 3: {
      const [start = 0, step = 0, end = 0] = p;
      let inc = 1;
      if (end < start) {
        inc = -1;
        if (step > 0) return '';
      }
      list = untilStep(c, start, end + inc, step);
      break;
    }
    default:
      return '';
  }
  const out = list.join(' ');
  checkSize(c, out.length, 'seq');
  return out;
}

/** Sprig's toDecimal: the value printed, read as an octal number (`toDecimal "0777"` is 511); else 0. */
function toDecimal(v: unknown): number {
  const s = typeof v === 'number' ? formatNumberV(v) : str(v);
  if (!/^[+-]?[0-7]+$/.test(s)) return 0;
  const octal = BigInt(`0o${s.replace(/^[+-]/, '')}`);
  const signed = s.startsWith('-') ? -octal : octal;
  return signed > 9223372036854775807n || signed < -9223372036854775808n ? 0 : Number(signed);
}

/** Sprig's randInt: a random integer in [min, max); Go panics when max ≤ min. */
function randInt(_c: CallContext, min: unknown, max: unknown): number {
  const [lo, hi] = [toInt64(min), toInt64(max)];
  if (hi - lo <= 0) throw new EvalFailure('invalid argument to Intn');
  return lo + Math.floor(Math.random() * (hi - lo));
}

/** The Sprig number functions added or replaced here, by name. */
export const SPRIG_MATH: FuncTable = {
  addf: def((c, ...a) => decimalOp(c, 0, a, decAdd), 0, Infinity),
  add1f: def((c, a) => decimalOp(c, a, [1], decAdd), 1),
  subf: def((c, a, ...r) => decimalOp(c, a, r, decSub), 1, Infinity),
  mulf: def((c, a, ...r) => decimalOp(c, a, r, decMul), 1, Infinity),
  divf: def((c, a, ...r) => decimalOp(c, a, r, decDiv), 1, Infinity),
  biggest: SPRIG_MORE.max as FuncTable[string],
  seq: def(seq as F, 0, Infinity),
  toDecimal: def((_c, v) => toDecimal(v), 1),
  randInt: def(randInt as F, 2),
};
