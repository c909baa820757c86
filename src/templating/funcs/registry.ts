/**
 * How built-in functions are declared: the implementation plus its arity, checked like Go checks
 * a function's signature (`wrong number of args for X: want N got M`).
 */
import { EvalFailure } from '../errors.js';
import type { CallContext, TemplateFunc } from '../types.js';

/**
 * Charging for walks (issue 14 finding 4): a function that visits the nodes of a value of
 * unbounded shape (copying, merging, comparing, printing, encoding) calls `chargeWalk(n)` per
 * container visited, `n` = its elements + 1 (map entries count 2: key and value), before working
 * on it; `chargeText(s)` for strings met inside; `chargeBuilt(s)` for strings it builds from parts.
 * Values can share structure (`list $a $a` doubles the leaves each time), so walking without
 * charging can run for minutes. Printing, JSON, deepEqual and str()/strval() already charge.
 */
export { chargeBuilt, chargeText, chargeWalk } from '../budget.js';

/** A function with its accepted argument counts (`max` may be Infinity). */
export interface FuncDef {
  fn: TemplateFunc;
  min: number;
  max: number;
  /** Go's `and`/`or`: arguments are evaluated lazily by the executor. */
  logical?: boolean;
  /** Go's predefined escapers `html` and `urlquery`, which html mode merges with its own escaping. */
  escaper?: 'html' | 'urlquery';
}

export type FuncTable = Record<string, FuncDef>;

/** Declares a function taking between `min` and `max` arguments. */
export function def(fn: TemplateFunc, min: number, max: number = min): FuncDef {
  return { fn, min, max };
}

/** Go's arity message for `name` called with `got` arguments, or null when it fits. */
export function arityError(name: string, d: FuncDef, got: number): string | null {
  if (got >= d.min && got <= d.max) return null;
  if (d.max === Infinity) return `wrong number of args for ${name}: want at least ${d.min} got ${got}`;
  return `wrong number of args for ${name}: want ${got < d.min ? d.min : d.max} got ${got}`;
}

/** Throws EvalFailure(bound) when a string a function is about to build would exceed the output cap. */
export function checkSize(ctx: CallContext, length: number, what: string): void {
  if (!(length <= ctx.limits.maxOutputBytes)) {
    throw new EvalFailure(`${what}: result of ${length} characters exceeds the ${ctx.limits.maxOutputBytes}-byte limit`, true);
  }
}
