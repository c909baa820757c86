/**
 * Sprig v3 list, dict and default functions (`list dict get set hasKey keys first last join split
 * splitList uniq sortAlpha default empty coalesce ternary`, and a few neighbours). Dicts are
 * null-prototype objects, so keys like `__proto__` are plain keys. Written anew from Sprig's docs.
 */
import { EvalFailure } from '../errors.js';
import type { CallContext } from '../types.js';
import { compareStrings, goTypeName, isMap, isTrue, mapGet, sortedKeys } from '../values.js';
import { deepEqual, isEmpty, listOf, str, strval, toInt64 } from './conv.js';
import { goKindName } from './sprig-data.js';
import { checkSize, def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;
type Dict = Record<string, unknown>;

/** A new dict (Go map[string]interface{}). */
export function newDict(): Dict {
  return Object.create(null) as Dict;
}

function setKey(d: Dict, k: string, v: unknown): void {
  Object.defineProperty(d, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/**
 * A dict argument. nil (a missing key) is an empty dict, as Go passes a nil map: reading it finds
 * nothing; writing to it (`set`) fails like Go's "assignment to entry in nil map".
 */
function asDict(v: unknown, fn: string, write = false): Dict | Map<unknown, unknown> {
  if (isMap(v)) return v;
  if (v === undefined || v === null) {
    if (write) throw new EvalFailure(`${fn}: assignment to entry in nil map`);
    return newDict();
  }
  throw new EvalFailure(`${fn}: wrong type for value; expected map[string]interface {}; got ${goTypeName(v)}`);
}

function asList(v: unknown, fn: string): unknown[] {
  const l = listOf(v);
  if (!l) throw new EvalFailure(`Cannot find ${fn} on type ${goKindName(v)}`);
  return l;
}

/** Sprig's strslice: list elements as strings, nil elements dropped; a scalar becomes one element. */
function strslice(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined && x !== null).map((x) => str(x));
  if (v === undefined || v === null) return [];
  return [str(v)];
}

function dict(_c: CallContext, ...kv: unknown[]): Dict {
  const d = newDict();
  for (let i = 0; i < kv.length; i += 2) setKey(d, strval(kv[i]), i + 1 < kv.length ? kv[i + 1] : '');
  return d;
}

function set(_c: CallContext, d: unknown, k: unknown, v: unknown): unknown {
  const m = asDict(d, 'set', true);
  if (m instanceof Map) m.set(str(k), v);
  else setKey(m, str(k), v);
  return m;
}

function unset(_c: CallContext, d: unknown, k: unknown): unknown {
  const m = asDict(d, 'unset');
  if (m instanceof Map) m.delete(str(k));
  else delete m[str(k)];
  return m;
}

function keys(_c: CallContext, ...ds: unknown[]): string[] {
  return ds.flatMap((d) => sortedKeys(asDict(d, 'keys')).map((k) => String(k)));
}

function split(c: CallContext, sep: unknown, s: unknown): Dict {
  const d = newDict();
  const parts = splitList(str(sep), str(s));
  c.charge(parts.length);
  parts.forEach((part, i) => setKey(d, `_${i}`, part));
  return d;
}

function splitList(sep: string, s: string): string[] {
  return sep === '' ? Array.from(s) : s.split(sep);
}

function uniq(c: CallContext, l: unknown): unknown[] {
  const out: unknown[] = [];
  for (const x of asList(l, 'uniq')) {
    c.charge(out.length);
    if (!out.some((y) => deepEqual(x, y))) out.push(x);
  }
  return out;
}

function pickOmit(keep: boolean) {
  return (_c: CallContext, d: unknown, ...ks: unknown[]): Dict => {
    const m = asDict(d, keep ? 'pick' : 'omit');
    const wanted = new Set(ks.map((k) => str(k)));
    const out = newDict();
    for (const k of sortedKeys(m)) if (wanted.has(String(k)) === keep) setKey(out, String(k), mapGet(m, k));
    return out;
  };
}

/** `until n` (and untilStep): bounded by the step budget so `range (until 1e9)` fails fast. */
function untilStep(c: CallContext, start: unknown, stop: unknown, step: unknown): number[] {
  const [a, b, s] = [toInt64(start), toInt64(stop), toInt64(step)];
  if (s === 0 || (s > 0 && a >= b) || (s < 0 && a <= b)) return [];
  const n = Math.ceil((b - a) / s);
  if (n > c.limits.maxSteps) throw new EvalFailure(`until: ${n} elements exceed the step limit`, true);
  return Array.from({ length: n }, (_x, i) => a + i * s);
}

const first: F = (_c, l) => asList(l, 'first')[0];
const last: F = (_c, l) => {
  const a = asList(l, 'last');
  return a[a.length - 1];
};

/** Sprig list/dict/default functions by name. */
export const SPRIG_LISTS: FuncTable = {
  list: def((_c, ...a) => a, 0, Infinity),
  dict: def(dict as F, 0, Infinity),
  get: def((_c, d, k) => {
    const m = asDict(d, 'get');
    const v = mapGet(m, str(k));
    return v === undefined && !(m instanceof Map ? m.has(str(k)) : Object.hasOwn(m, str(k))) ? '' : v;
  }, 2),
  set: def(set as F, 3),
  unset: def(unset as F, 2),
  hasKey: def((_c, d, k) => {
    const m = asDict(d, 'hasKey');
    return m instanceof Map ? m.has(str(k)) : Object.hasOwn(m, str(k));
  }, 2),
  keys: def(keys as F, 0, Infinity),
  values: def((_c, d) => {
    const m = asDict(d, 'values');
    return sortedKeys(m).map((k) => mapGet(m, k));
  }, 1),
  pick: def(pickOmit(true) as F, 1, Infinity),
  omit: def(pickOmit(false) as F, 1, Infinity),
  first: def(first, 1),
  last: def(last, 1),
  rest: def((_c, l) => asList(l, 'rest').slice(1), 1),
  initial: def((_c, l) => asList(l, 'initial').slice(0, -1), 1),
  reverse: def((_c, l) => [...asList(l, 'reverse')].reverse(), 1),
  has: def((_c, needle, l) => asList(l, 'has').some((x) => deepEqual(x, needle)), 2),
  without: def((c, l, ...vs) => {
    const list = asList(l, 'without');
    c.charge(list.length * vs.length);
    return list.filter((x) => !vs.some((v) => deepEqual(x, v)));
  }, 1, Infinity),
  join: def((c, sep, l) => {
    const out = strslice(l).join(str(sep));
    checkSize(c, out.length, 'join');
    return out;
  }, 2),
  split: def(split as F, 2),
  splitList: def((_c, sep, s) => splitList(str(sep), str(s)), 2),
  uniq: def(uniq as F, 1),
  sortAlpha: def((_c, l) => strslice(l).sort(compareStrings), 1),
  until: def((c, n) => untilStep(c, 0, n, toInt64(n) >= 0 ? 1 : -1), 1),
  untilStep: def(untilStep as F, 3),
  default: def((_c, d, ...given) => (given.length === 0 || isEmpty(given[0]) ? d : given[0]), 1, Infinity),
  empty: def((_c, v) => isEmpty(v), 1),
  coalesce: def((_c, ...a) => a.find((x) => !isEmpty(x)) ?? null, 0, Infinity),
  ternary: def((_c, t, f, cond) => (isTrue(cond) ? t : f), 3),
  fail: def((_c, msg) => { throw new EvalFailure(str(msg)); }, 1),
};
