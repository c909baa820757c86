/**
 * How template values behave: Go truthiness, Go type names for messages, field/method access on
 * JS data, and map iteration order. JS values stand in for Go's: plain objects and Maps are maps,
 * arrays are slices, class instances are structs, Dates are time.Time, SafeHTML is template.HTML.
 */
import { EvalFailure } from './errors.js';
import { GoNull, goNullTypeName, NullTime } from './go-null.js';
import { timeMethod } from './go-time.js';
import { SafeHTML } from './types.js';

/** A JS object used as a Go map: prototype is Object.prototype or null. */
export function isPlainMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Number of own enumerable keys, without building the key array for the common non-empty case. */
function hasKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/**
 * Go's truth (text/template `if`): false for nil, false, 0, NaN, '' and empty arrays/maps; structs,
 * dates and functions are true. Source: Go text/template `IsTrue`.
 */
export function isTrue(v: unknown): boolean {
  switch (typeof v) {
    case 'string': return v.length > 0;
    case 'number': return v !== 0 && !Number.isNaN(v);
    case 'boolean': return v;
    case 'undefined': return false;
    case 'bigint': return v !== 0n;
    case 'function': return true;
    case 'object':
      if (v === null) return false;
      if (Array.isArray(v)) return v.length > 0;
      if (v instanceof SafeHTML) return v.value.length > 0;
      if (v instanceof Map || v instanceof Set) return v.size > 0;
      if (isPlainMap(v)) return hasKeys(v);
      return true;
    default: return true;
  }
}

/** Go-ish type name of a value, for error messages and %T. */
export function goTypeName(v: unknown): string {
  switch (typeof v) {
    case 'string': return 'string';
    case 'number': return Number.isInteger(v) ? 'int' : 'float64';
    case 'bigint': return 'int64';
    case 'boolean': return 'bool';
    case 'undefined': return '<nil>';
    case 'function': return 'func';
    case 'symbol': return 'symbol';
  }
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof SafeHTML) return 'template.HTML';
  if (v instanceof Date) return 'time.Time';
  if (v instanceof GoNull) return goNullTypeName(v);
  if (v instanceof Map || isPlainMap(v)) return 'map[string]interface {}';
  return (v as object).constructor?.name || 'struct';
}

const FORBIDDEN = new Set(['constructor', '__proto__', 'prototype']);

/** Whether `name` is a member a template may read on a struct-like (class instance) value. */
function structHas(o: object, name: string): boolean {
  if (FORBIDDEN.has(name) || name in Object.prototype) return false;
  return name in o;
}

/** Calls a method value with `this` bound, as Go calls `.Method arg…`. */
function callMethod(recv: unknown, fn: unknown, name: string, args: unknown[] | null): unknown {
  try {
    return (fn as (...a: unknown[]) => unknown).apply(recv, args ?? []);
  } catch (e) {
    if (e instanceof EvalFailure) throw e;
    throw new EvalFailure(`error calling ${name}: ${(e as Error)?.message ?? String(e)}`);
  }
}

function noArgs(name: string, args: unknown[] | null): void {
  if (args && args.length) throw new EvalFailure(`${name} is not a method but has arguments`);
}

/**
 * `.name` on `recv`, with `args` when the field is the last in a chain and has arguments.
 * Maps (plain objects, Map): missing keys give undefined; function values are called (they are
 * how callers supply methods on plain data). Nil receivers give undefined (lenient; Go errors).
 * Structs (class instances) and other types: unknown names throw like Go's
 * `can't evaluate field X in type T`. Date values expose a few time.Time methods (Format, Year…).
 * Prototype members (`constructor`, `toString`, …) are never reachable. With `invoke` false a
 * function value is returned (bound to its receiver) instead of called: `call .f` needs that.
 */
export function getField(recv: unknown, name: string, args: unknown[] | null, invoke = true): unknown {
  if (recv === undefined || recv === null) return undefined;
  if (typeof recv === 'object') {
    if (isPlainMap(recv)) {
      const v = Object.hasOwn(recv, name) ? recv[name] : undefined;
      if (typeof v === 'function') return invoke ? callMethod(recv, v, name, args) : v.bind(recv);
      noArgs(name, args);
      return v;
    }
    if (recv instanceof Map) {
      noArgs(name, args);
      return recv.get(name);
    }
    if (recv instanceof Date) return timeMethod(recv, name, args ?? []);
    if (recv instanceof GoNull) return nullField(recv, name, args);
    if (!Array.isArray(recv) && !(recv instanceof SafeHTML) && structHas(recv, name)) {
      const v = (recv as Record<string, unknown>)[name];
      if (typeof v === 'function') return invoke ? callMethod(recv, v, name, args) : v.bind(recv);
      noArgs(name, args);
      return v;
    }
  }
  throw new EvalFailure(`can't evaluate field ${name} in type ${goTypeName(recv)}`);
}

/**
 * A field of listmonk's null.Time / null.String / null.Int: their own fields (`.Time`, `.String`,
 * `.Int`, `.Valid`); on a null.Time every other name is a time.Time method of `.Time`, so both
 * `.CreatedAt.Time.Format` (listmonk's form) and `.CreatedAt.Format` work (issue 15 item 8).
 */
function nullField(recv: GoNull, name: string, args: unknown[] | null): unknown {
  if (Object.hasOwn(recv, name)) {
    noArgs(name, args);
    return (recv as unknown as Record<string, unknown>)[name];
  }
  if (recv instanceof NullTime) return timeMethod(recv.Time, name, args ?? []);
  throw new EvalFailure(`can't evaluate field ${name} in type ${goNullTypeName(recv)}`);
}

/** Keys of a map in Go's printing/range order: sorted (numbers numerically, else as strings). */
export function sortedKeys(m: Record<string, unknown> | Map<unknown, unknown>): unknown[] {
  if (m instanceof Map) {
    const keys = [...m.keys()];
    if (keys.every((k) => typeof k === 'number')) return (keys as number[]).sort((a, b) => a - b);
    return keys.sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  }
  return Object.keys(m).sort();
}

/** Value stored under `key` of a map value (plain object or Map); undefined when missing. */
export function mapGet(m: Record<string, unknown> | Map<unknown, unknown>, key: unknown): unknown {
  if (m instanceof Map) return m.get(key);
  const k = String(key);
  return Object.hasOwn(m, k) ? m[k] : undefined;
}

/** Whether a value is a Go map stand-in. */
export function isMap(v: unknown): v is Record<string, unknown> | Map<unknown, unknown> {
  return v instanceof Map || isPlainMap(v);
}

/** Unwraps SafeHTML to its string (Go's template.HTML is a string kind). */
export function unwrap(v: unknown): unknown {
  return v instanceof SafeHTML ? v.value : v;
}
