/**
 * Runtime of `range` (Go text/template's walkRange): arrays in order, maps in sorted key order,
 * integers as 0…n-1 (Go 1.22), nil as empty; anything else is an error.
 */
import { EvalFailure } from '../errors.js';
import { formatValue } from '../go-format.js';
import { isMap, mapGet, sortedKeys } from '../values.js';
import { type ExecState, locate, type Loc } from './state.js';

type Body = (st: ExecState, dot: unknown, vars: unknown[]) => number;

/**
 * Runs `body` per element, setting the declared variable slots (`[value]` or `[key, value]`).
 * Returns 0, or the else-branch's result when there was no iteration.
 */
export function runRange(
  st: ExecState, v: unknown, slots: number[], body: Body, elseBody: Body | null,
  dot: unknown, vars: unknown[], loc: Loc,
): number {
  const [s0, s1] = slots;
  let n = 0;
  const one = (key: unknown, val: unknown): boolean => {
    try {
      st.tick();
    } catch (e) {
      throw locate(e, loc);
    }
    n++;
    if (s1 !== undefined) {
      vars[s0 as number] = key;
      vars[s1] = val;
    } else if (s0 !== undefined) vars[s0] = val;
    return body(st, val, vars) === 1;
  };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (one(i, v[i])) break;
  } else if (isMap(v)) {
    for (const k of sortedKeys(v)) if (one(k, mapGet(v, k))) break;
  } else if (typeof v === 'number' && Number.isInteger(v)) {
    if (s1 !== undefined) throw locate(new EvalFailure(`can't use ${v} to iterate over more than one variable`), loc);
    for (let i = 0; i < v; i++) if (one(i, i)) break;
  } else if (v !== undefined && v !== null) {
    throw locate(new EvalFailure(`range can't iterate over ${formatValue(v)}`), loc);
  }
  if (n === 0 && elseBody) return elseBody(st, dot, vars);
  return 0;
}
