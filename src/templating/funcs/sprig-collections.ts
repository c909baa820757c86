/**
 * Sprig v3 list and dict functions beyond sprig-lists.ts: `tuple`, `push`/`append`, `prepend`,
 * `chunk`, Sprig's `slice` (which replaces Go's built-in `slice` in listmonk), `concat`, `compact`,
 * the `must…` forms of the list functions, and the dict functions `pluck`, `merge`,
 * `mergeOverwrite` (dario.cat/mergo's rules for maps), `deepCopy` and `dig`. Walking functions pay
 * one step per node (issue 14 finding 4). From Sprig's list.go and dict.go; written anew.
 */
import { EvalFailure } from '../errors.js';
import type { CallContext } from '../types.js';
import { SafeHTML } from '../types.js';
import { goTypeName, isMap, mapGet } from '../values.js';
import { GO_BUILTINS } from './builtins.js';
import { isEmpty, listOf, toInt64 } from './conv.js';
import { def, type FuncDef, type FuncTable } from './registry.js';
import { goKindName } from './sprig-data.js';
import { newDict, SPRIG_LISTS } from './sprig-lists.js';
import { walkCharged } from './sprig-walk.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;
type AnyMap = Record<string, unknown> | Map<unknown, unknown>;

/** A list argument (nil is an empty list), else Go's error text built by `message(kind)`. */
function listArg(v: unknown, message: (kind: string) => string): unknown[] {
  const l = listOf(v);
  if (!l) throw new EvalFailure(message(goKindName(v)));
  return l;
}

/** A `map[string]interface{}` parameter: nil is Go's nil map (null here), anything else not a map fails. */
function mapArg(v: unknown, fn: string): AnyMap | null {
  if (v === undefined || v === null) return null;
  if (isMap(v)) return v;
  throw new EvalFailure(`${fn}: wrong type for value; expected map[string]interface {}; got ${goTypeName(v)}`);
}

function has(m: AnyMap, k: string): boolean {
  return m instanceof Map ? m.has(k) : Object.hasOwn(m, k);
}

function put(m: AnyMap, k: string, v: unknown): void {
  if (m instanceof Map) m.set(k, v);
  else Object.defineProperty(m, k, { value: v, writable: true, enumerable: true, configurable: true });
}

function keysOf(m: AnyMap): string[] {
  return m instanceof Map ? [...m.keys()].map(String) : Object.keys(m);
}

function chunk(c: CallContext, size: unknown, l: unknown): unknown[][] {
  const list = listArg(l, (k) => `Cannot chunk type ${k}`);
  const n = toInt64(size);
  if (n <= 0) throw new EvalFailure('runtime error: makeslice: len out of range');
  c.charge(list.length);
  const out: unknown[][] = [];
  for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
}

/**
 * Sprig's slice: `slice $list`, `slice $list 1`, `slice $list 1 3`; an empty list gives nil; bad
 * bounds fail as reflect does. Strings keep Go's built-in `slice` (in listmonk, where Sprig's
 * replaces it, slicing a string fails).
 */
function sprigSlice(c: CallContext, l: unknown, ...idx: unknown[]): unknown {
  if (typeof l === 'string' || l instanceof SafeHTML) return (GO_BUILTINS.slice as FuncDef).fn(c, l, ...idx);
  const list = listArg(l, (k) => `list should be type of slice or array but ${k}`);
  if (list.length === 0) return null;
  const start = idx.length > 0 ? toInt64(idx[0]) : 0;
  const end = idx.length < 2 ? list.length : toInt64(idx[1]);
  if (start < 0 || end < start || end > list.length) throw new EvalFailure('reflect.Value.Slice: slice index out of bounds');
  return list.slice(start, end);
}

function concat(c: CallContext, ...ls: unknown[]): unknown[] {
  let out: unknown[] | null = null;
  for (const l of ls) {
    const list = listArg(l, (k) => `Cannot concat type ${k} as list`);
    if (list.length === 0) continue;
    out = out ?? [];
    if (out.length + list.length > c.limits.maxSteps) throw new EvalFailure('concat: list too long', true);
    for (const x of list) out.push(x);
  }
  return out ?? [];
}

const MAX_MERGE_DEPTH = 1000;

/**
 * mergo.Merge / MergeWithOverwrite for `map[string]interface{}` (as Sprig calls them): for each key
 * of `src`, nested maps are merged into the destination's map in place; without `overwrite` a
 * value is copied only where the destination lacks the key or holds an empty value (nil, '', 0,
 * false, empty list or map) and nil never is; with `overwrite` every source value wins (nil too),
 * except that a nested map is merged rather than replaced. Charges one step per key.
 */
function mergeInto(c: CallContext, dst: AnyMap, src: AnyMap, overwrite: boolean, depth = 0): void {
  if (depth > MAX_MERGE_DEPTH) throw new EvalFailure(`maps nested more than ${MAX_MERGE_DEPTH} deep (a map that contains itself?)`);
  const keys = keysOf(src);
  c.charge(keys.length + 1);
  for (const k of keys) {
    const sv = mapGet(src, k);
    const present = has(dst, k);
    const dv = present ? mapGet(dst, k) : undefined;
    if (sv === undefined || sv === null) {
      if (overwrite) put(dst, k, null);
      continue;
    }
    if (isMap(sv) && present && isMap(dv)) mergeInto(c, dv, sv, overwrite, depth + 1);
    if (present && !isEmpty(dv)) {
      if (Array.isArray(sv)) {
        if (overwrite) put(dst, k, sv);
        continue;
      }
      if (isMap(sv) && isMap(dv)) continue;
    }
    if (overwrite || !present || isEmpty(dv)) put(dst, k, sv);
  }
}

const merge = (overwrite: boolean, fn: string): F => (c, d, ...srcs) => {
  let dst = mapArg(d, fn);
  for (const s of srcs) {
    const src = mapArg(s, fn);
    if (!src) continue;
    if (!dst) {
      if (keysOf(src).length === 0) continue;
      dst = newDict();
    }
    mergeInto(c, dst, src, overwrite);
  }
  return dst ?? newDict();
};

/**
 * copystructure.Copy for template values: lists and maps (plain, null-prototype or Map) are copied
 * all the way down; dates, strings and other values are immutable from templates and kept.
 */
function deepCopy(c: CallContext, v: unknown): unknown {
  walkCharged(c, v, undefined, () => {
    throw new EvalFailure('deepCopy: the value contains itself');
  });
  const copy = (x: unknown, depth: number): unknown => {
    if (depth > 10_000) throw new EvalFailure('deepCopy: value nested too deeply', true);
    if (Array.isArray(x)) return x.map((e) => copy(e, depth + 1));
    if (x instanceof Map) return new Map([...x].map(([k, e]) => [k, copy(e, depth + 1)]));
    if (isMap(x)) {
      const out = Object.create(Object.getPrototypeOf(x) as object | null) as Record<string, unknown>;
      for (const k of Object.keys(x)) put(out, k, copy((x as Record<string, unknown>)[k], depth + 1));
      return out;
    }
    return x;
  };
  return copy(v, 0);
}

/** Go's message for a failed `x.(T)` on an interface value. */
function conversion(v: unknown, want: string): EvalFailure {
  const got = v === undefined || v === null ? 'nil' : goTypeName(v);
  return new EvalFailure(`interface conversion: interface {} is ${got}, not ${want}`);
}

/** Sprig's dig: `dig "a" "b" default $dict` walks nested maps; a missing key gives the default. */
function dig(_c: CallContext, ...ps: unknown[]): unknown {
  if (ps.length < 3) throw new EvalFailure('dig needs at least three arguments');
  let d = ps[ps.length - 1];
  const dflt = ps[ps.length - 2];
  const keys = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') throw conversion(k, 'string');
    return k;
  });
  for (let i = 0; i < keys.length; i++) {
    if (!isMap(d)) throw conversion(d, 'map[string]interface {}');
    const k = keys[i] as string;
    if (!has(d, k)) return dflt;
    d = mapGet(d, k);
  }
  return d;
}

function pluck(_c: CallContext, key: unknown, ...ds: unknown[]): unknown[] {
  const k = typeof key === 'string' ? key : String(key ?? '');
  const out: unknown[] = [];
  for (const d of ds) {
    const m = mapArg(d, 'pluck');
    if (m && has(m, k)) out.push(mapGet(m, k));
  }
  return out;
}

function push(kind: 'push' | 'prepend'): F {
  return (_c, l, v) => {
    const list = listArg(l, (k) => `Cannot ${kind} on type ${k}`);
    return kind === 'push' ? [...list, v] : [v, ...list];
  };
}

const compact: F = (_c, l) => listArg(l, (k) => `Cannot compact on type ${k}`).filter((x) => !isEmpty(x));

const same = (name: string): FuncDef => SPRIG_LISTS[name] as FuncDef;

/** Sprig's list and dict functions added here, by name. */
export const SPRIG_COLLECTIONS: FuncTable = {
  tuple: same('list'),
  push: def(push('push'), 2),
  append: def(push('push'), 2),
  mustPush: def(push('push'), 2),
  mustAppend: def(push('push'), 2),
  prepend: def(push('prepend'), 2),
  mustPrepend: def(push('prepend'), 2),
  mustFirst: same('first'),
  mustLast: same('last'),
  mustRest: same('rest'),
  mustInitial: same('initial'),
  mustReverse: same('reverse'),
  mustUniq: same('uniq'),
  mustWithout: same('without'),
  mustHas: same('has'),
  compact: def(compact, 1),
  mustCompact: def(compact, 1),
  chunk: def(chunk as F, 2),
  mustChunk: def(chunk as F, 2),
  slice: def(sprigSlice as F, 1, Infinity),
  mustSlice: def(sprigSlice as F, 1, Infinity),
  concat: def(concat as F, 0, Infinity),
  pluck: def(pluck as F, 1, Infinity),
  merge: def(merge(false, 'merge'), 1, Infinity),
  mustMerge: def(merge(false, 'mustMerge'), 1, Infinity),
  mergeOverwrite: def(merge(true, 'mergeOverwrite'), 1, Infinity),
  mustMergeOverwrite: def(merge(true, 'mustMergeOverwrite'), 1, Infinity),
  deepCopy: def(deepCopy as F, 1),
  mustDeepCopy: def(deepCopy as F, 1),
  dig: def(dig, 0, Infinity),
};
