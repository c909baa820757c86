/**
 * Sprig v3's reflection, comparison and JSON functions: `typeOf`, `typeIs`, `typeIsLike`, `kindOf`,
 * `kindIs`, `deepEqual`, `all`, `any`, and the JSON encoders `toJson`, `toPrettyJson`, `toRawJson`
 * with their `must…` forms. Encoders and `deepEqual` walk their values charged to the step budget
 * (issue 14 finding 4). Go type and kind names follow fmt's `%T` and reflect.Kind for the JS values
 * that stand in for Go's (see README "Data model"). From Sprig's reflect.go and defaults.go.
 */
import { EvalFailure } from '../errors.js';
import { toGoJson } from '../go-json.js';
import type { CallContext } from '../types.js';
import { SafeHTML } from '../types.js';
import { goTypeName, isMap } from '../values.js';
import { deepEqual, isEmpty, str } from './conv.js';
import { def, type FuncTable } from './registry.js';
import { chargeWalk } from './sprig-walk.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

/**
 * reflect.Kind's name for a template value: `invalid` (nil), `string`, `int`, `float64`, `bool`,
 * `slice`, `map`, `struct` (dates and other objects), `func`, `int64` (BigInt).
 */
export function goKindName(v: unknown): string {
  switch (typeof v) {
    case 'string': return 'string';
    case 'number': return Number.isInteger(v) ? 'int' : 'float64';
    case 'bigint': return 'int64';
    case 'boolean': return 'bool';
    case 'undefined': return 'invalid';
    case 'function': return 'func';
  }
  if (v === null) return 'invalid';
  if (v instanceof SafeHTML) return 'string';
  if (Array.isArray(v)) return 'slice';
  if (isMap(v)) return 'map';
  return 'struct';
}

/** fmt's `%T`: `string`, `int`, `float64`, `bool`, `[]interface {}`, `map[string]interface {}`, `time.Time`, `<nil>`… */
export const goTypeOf = (v: unknown): string => goTypeName(v);

/** json.Marshal / MarshalIndent / an Encoder without HTML escaping, after charging the walk. */
function encode(c: CallContext, v: unknown, html: boolean, indent: string): string {
  chargeWalk(c, v, (node) => `json: unsupported value: encountered a cycle via ${goTypeName(node)}`);
  return toGoJson(v, html, indent);
}

/** Sprig's toJson/toPrettyJson: an encoding error gives ''. */
const quietJson = (html: boolean, indent: string): F => (c, v) => {
  try {
    return encode(c, v, html, indent);
  } catch (e) {
    if (e instanceof EvalFailure && e.bound) throw e;
    return '';
  }
};

/** The `must…` forms (and toRawJson, which panics): an encoding error fails the template. */
const strictJson = (html: boolean, indent: string): F => (c, v) => encode(c, v, html, indent);

function equalCharged(c: CallContext, a: unknown, b: unknown): boolean {
  chargeWalk(c, a);
  chargeWalk(c, b);
  return deepEqual(a, b);
}

/** Sprig's reflection, defaults and JSON functions added here, by name. */
export const SPRIG_DATA: FuncTable = {
  typeOf: def((_c, v) => goTypeOf(v), 1),
  typeIs: def((_c, t, v) => str(t) === goTypeOf(v), 2),
  typeIsLike: def((_c, t, v) => {
    const got = goTypeOf(v);
    return str(t) === got || `*${str(t)}` === got;
  }, 2),
  kindOf: def((_c, v) => goKindName(v), 1),
  kindIs: def((_c, k, v) => str(k) === goKindName(v), 2),
  deepEqual: def((c, a, b) => equalCharged(c, a, b), 2),
  all: def((_c, ...vs) => vs.every((v) => !isEmpty(v)), 0, Infinity),
  any: def((_c, ...vs) => vs.some((v) => !isEmpty(v)), 0, Infinity),
  toJson: def(quietJson(true, ''), 1),
  toPrettyJson: def(quietJson(true, '  '), 1),
  toRawJson: def(strictJson(false, ''), 1),
  mustToJson: def(strictJson(true, ''), 1),
  mustToPrettyJson: def(strictJson(true, '  '), 1),
  mustToRawJson: def(strictJson(false, ''), 1),
};
