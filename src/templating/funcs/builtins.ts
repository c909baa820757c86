/**
 * Go text/template's predefined functions: and or not eq ne lt le gt ge len index slice print
 * printf println html js urlquery call (semantics of Go's text/template funcs.go, written anew).
 */
import { EvalFailure } from '../errors.js';
import { htmlEscapeString } from '../escape/escapers.js';
import { queryEscape } from '../escape/choose.js';
import { formatValue, sprint, sprintf, sprintln } from '../go-format.js';
import { GoNull } from '../go-null.js';
import type { CallContext } from '../types.js';
import { SafeHTML } from '../types.js';
import { goTypeName, isMap, isTrue, mapGet, unwrap } from '../values.js';
import { def, type FuncTable } from './registry.js';

type Kind = 'nil' | 'bool' | 'number' | 'string' | 'other';

function kindOf(v: unknown): Kind {
  if (v === undefined || v === null) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string' || v instanceof SafeHTML) return 'string';
  return 'other';
}

const prim = unwrap;

/** Go's eq for one pair: nil equals only nil; different basic kinds are an error. */
function eqPair(a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'nil' || kb === 'nil') return ka === kb;
  if (ka !== kb) throw new EvalFailure('incompatible types for comparison');
  if (ka !== 'other') return prim(a) === prim(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof GoNull || b instanceof GoNull) {
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) throw new EvalFailure('incompatible types for comparison');
    return (a as GoNull).same(b);
  }
  if (Array.isArray(a) || isMap(a)) throw new EvalFailure(`non-comparable type ${formatValue(a)}: ${goTypeName(a)}`);
  return a === b;
}

function eq(_c: CallContext, a: unknown, ...bs: unknown[]): boolean {
  if (bs.length === 0) throw new EvalFailure('missing argument for comparison');
  return bs.some((b) => eqPair(a, b));
}

function lt(_c: CallContext, a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== 'number' && ka !== 'string') throw new EvalFailure('invalid type for comparison');
  if (ka !== kb) throw new EvalFailure('incompatible types for comparison');
  return (prim(a) as number | string) < (prim(b) as number | string);
}

const le = (c: CallContext, a: unknown, b: unknown): boolean => lt(c, a, b) || eq(c, a, b);

/** Code points in a string, without materialising them. */
function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Length in characters (code points) for strings; see README on bytes vs characters. */
function length(_c: CallContext, v: unknown): number {
  if (v === undefined || v === null) throw new EvalFailure('len of nil pointer');
  if (typeof v === 'string' || v instanceof SafeHTML) return runeCount(prim(v) as string);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (isMap(v)) return Object.keys(v).length;
  throw new EvalFailure(`len of type ${goTypeName(v)}`);
}

function intIndex(i: unknown, len: number, cap = len): number {
  if (typeof i !== 'number' || !Number.isInteger(i)) throw new EvalFailure(`cannot index slice/array with type ${goTypeName(i)}`);
  if (i < 0 || i > cap) throw new EvalFailure(`index out of range: ${i}`);
  return i;
}

function index(_c: CallContext, item: unknown, ...keys: unknown[]): unknown {
  let v = item;
  if (v === undefined || v === null) throw new EvalFailure('index of untyped nil');
  for (const k of keys) {
    if (Array.isArray(v)) v = v[intIndex(k, v.length, v.length - 1)];
    else if (typeof v === 'string' || v instanceof SafeHTML) {
      const cps = Array.from(prim(v) as string);
      v = (cps[intIndex(k, cps.length, cps.length - 1)] as string).codePointAt(0);
    } else if (isMap(v)) v = mapGet(v, k);
    else if (v === undefined || v === null) throw new EvalFailure('index of nil pointer');
    else throw new EvalFailure(`can't index item of type ${goTypeName(v)}`);
  }
  return v;
}

function slice(_c: CallContext, item: unknown, ...idx: unknown[]): unknown {
  if (item === undefined || item === null) throw new EvalFailure('slice of untyped nil');
  const isStr = typeof item === 'string' || item instanceof SafeHTML;
  const seq: unknown[] = isStr ? Array.from(prim(item) as string) : Array.isArray(item) ? item : [];
  if (!isStr && !Array.isArray(item)) throw new EvalFailure(`can't slice item of type ${goTypeName(item)}`);
  if (idx.length > 3 || (isStr && idx.length > 2)) throw new EvalFailure(isStr ? 'cannot 3-index slice a string' : 'too many slice indexes');
  const [i = 0, j = seq.length] = idx.map((x) => intIndex(x, seq.length));
  if (i > j) throw new EvalFailure(`invalid slice index: ${i} > ${j}`);
  return isStr ? (seq as string[]).slice(i, j).join('') : seq.slice(i, j);
}

/** Go's evalArgs: a single string as-is, otherwise fmt.Sprint of the arguments. */
function argText(args: unknown[]): string {
  return args.length === 1 && typeof args[0] === 'string' ? args[0] : sprint(args);
}

/** Go's template.JSEscapeString. */
export function jsEscapeString(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    switch (ch) {
      case '\\': out += '\\\\'; continue;
      case "'": out += "\\'"; continue;
      case '"': out += '\\"'; continue;
      case '<': out += '\\u003C'; continue;
      case '>': out += '\\u003E'; continue;
      case '&': out += '\\u0026'; continue;
      case '=': out += '\\u003D'; continue;
    }
    if (cp < 0x20 || (cp >= 0x7f && !/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch))) out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

function call(_c: CallContext, fn: unknown, ...args: unknown[]): unknown {
  if (fn === undefined || fn === null) throw new EvalFailure('call of nil');
  if (typeof fn !== 'function') throw new EvalFailure(`non-function of type ${goTypeName(fn)}`);
  return (fn as (...a: unknown[]) => unknown)(...args);
}

function logical(isAnd: boolean) {
  return (_c: CallContext, ...args: unknown[]): unknown => {
    for (const a of args) if (isTrue(a) !== isAnd) return a;
    return args[args.length - 1];
  };
}

/** The Go built-ins by name. */
export const GO_BUILTINS: FuncTable = {
  and: { ...def(logical(true), 1, Infinity), logical: true },
  or: { ...def(logical(false), 1, Infinity), logical: true },
  not: def((_c, v) => !isTrue(v), 1),
  eq: def(eq as (c: CallContext, ...a: unknown[]) => unknown, 1, Infinity),
  ne: def((c, a, b) => !eq(c, a, b), 2),
  lt: def((c, a, b) => lt(c, a, b), 2),
  le: def((c, a, b) => le(c, a, b), 2),
  gt: def((c, a, b) => !le(c, a, b), 2),
  ge: def((c, a, b) => !lt(c, a, b), 2),
  len: def((c, v) => length(c, v), 1),
  index: def(index as (c: CallContext, ...a: unknown[]) => unknown, 1, Infinity),
  slice: def(slice as (c: CallContext, ...a: unknown[]) => unknown, 1, Infinity),
  print: def((_c, ...a) => sprint(a), 0, Infinity),
  println: def((_c, ...a) => sprintln(a), 0, Infinity),
  printf: def((c, f, ...a) => sprintf(typeof f === 'string' ? f : formatValue(f), a, c.limits.maxOutputBytes), 1, Infinity),
  html: { ...def((_c, ...a) => htmlEscapeString(argText(a)), 0, Infinity), escaper: 'html' },
  js: def((_c, ...a) => jsEscapeString(argText(a)), 0, Infinity),
  urlquery: { ...def((_c, ...a) => queryEscape(argText(a)), 0, Infinity), escaper: 'urlquery' },
  call: def(call as (c: CallContext, ...a: unknown[]) => unknown, 1, Infinity),
};
