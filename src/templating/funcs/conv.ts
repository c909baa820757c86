/**
 * Value conversions shared by the functions: Sprig's strval/toInt64/toFloat64 (which follow the
 * spf13/cast rules), Sprig's `empty`, and deep equality for `uniq`/`has`.
 */
import { chargeWalk } from '../budget.js';
import { formatValue } from '../go-format.js';
import { GoNull } from '../go-null.js';
import { SafeHTML } from '../types.js';
import { isMap, isTrue, mapGet, sortedKeys } from '../values.js';

/**
 * A string parameter: strings as-is, SafeHTML's text, nil as '' (Go would reject nil and non-strings
 * for Sprig's `string` parameters; we convert them with %v instead, see README).
 */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (v instanceof SafeHTML) return v.value;
  return formatValue(v);
}

/** Sprig's strval: like str() but nil prints `<nil>` (used by toString, dict keys, sortAlpha). */
export function strval(v: unknown): string {
  return v === undefined || v === null ? '<nil>' : str(v);
}

const INT_BASE0 = /^[+-]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|[1-9][0-9_]*)$/;

/** Parses an integer string with Go's ParseInt(s, 0, 64) rules; null when invalid. */
export function parseIntBase0(s: string): number | null {
  if (!INT_BASE0.test(s) || /__|_$/.test(s)) return null;
  const neg = s.startsWith('-');
  let t = s.replace(/^[+-]/, '').replace(/_/g, '');
  if (/^0[0-7]+$/.test(t)) t = `0o${t.slice(1)}`;
  else if (/^0[oO]/.test(t)) t = `0o${t.slice(2)}`;
  const n = Number(BigInt(t));
  return neg ? -n : n;
}

/** cast.ToInt64 (what Sprig's add/sub/… use): numbers truncate, strings parse, failures give 0. */
export function toInt64(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || v instanceof SafeHTML) {
    const s = String(v).replace(/\.0*$/, '');
    return parseIntBase0(s) ?? 0;
  }
  if (typeof v === 'bigint') return Number(v);
  return 0;
}

/** cast.ToFloat64: numbers as-is, strings parsed as Go floats, failures give 0. */
export function toFloat64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || v instanceof SafeHTML) {
    const s = String(v).trim();
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(Inf|inf|Infinity|NaN)$/.test(s)) return 0;
    return s.toLowerCase().endsWith('inf') ? (s.startsWith('-') ? -Infinity : Infinity) : Number(s);
  }
  return 0;
}

/** Sprig's `empty`: nil, '', 0, false, empty arrays/maps; dates and structs are never empty. */
export function isEmpty(v: unknown): boolean {
  if (v instanceof Date) return false;
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && !isMap(v) && !(v instanceof SafeHTML)) return false;
  return !isTrue(v);
}

/**
 * reflect.DeepEqual over template values. Each pair of containers compared is charged to the
 * execution's step budget (budget.ts), so equal values sharing structure exponentially fail with
 * the step limit instead of comparing for minutes (issue 14 finding 4).
 */
export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 64 || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof SafeHTML && b instanceof SafeHTML) return a.value === b.value;
  if (a instanceof GoNull) return a.same(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    chargeWalk(a.length + 1);
    return a.every((x, i) => deepEqual(x, b[i], depth + 1));
  }
  if (isMap(a) && isMap(b)) {
    const ka = sortedKeys(a);
    const kb = sortedKeys(b);
    chargeWalk(2 * ka.length + 1);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && deepEqual(mapGet(a, k), mapGet(b, k), depth + 1));
  }
  return false;
}

/** Elements of an array-like template value (arrays; nil → []); null when it is not a list. */
export function listOf(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null) return [];
  return null;
}
