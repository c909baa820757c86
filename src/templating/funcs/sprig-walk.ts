/**
 * Charging the step budget while walking a template value (issue 14 finding 4): a value built in a
 * few steps can hold 2^40 leaves through shared references (`$a = list $a $a`), or a cycle
 * (`set $d "self" $d`), so every function that walks a value pays one step per node as it goes and
 * stops with the usual limit error instead of running for minutes.
 *
 * TODO(tmpl): the shared charging helper from issue 14 finding 4 is not on main yet; when it lands,
 * replace walkCharged/chargeWalk here with it (same contract: one unit per node, thrown as a bound).
 */
import type { CallContext } from '../types.js';
import { isMap } from '../values.js';

const BATCH = 256;

/**
 * Calls `visit` for every node of `v` (depth first, maps in insertion order), charging one step per
 * node to `c` in batches of 256. Arrays, plain maps and Maps are entered; anything else is a leaf.
 * Throws the budget's EvalFailure (a bound) when the step limit is exceeded, so cycles terminate.
 */
export function walkCharged(c: CallContext, v: unknown, visit?: (node: unknown) => void): void {
  const stack: unknown[] = [v];
  let pending = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (++pending === BATCH) {
      c.charge(pending);
      pending = 0;
    }
    visit?.(node);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
    } else if (node instanceof Map) {
      for (const x of node.values()) stack.push(x);
    } else if (isMap(node)) {
      for (const k in node) if (Object.hasOwn(node, k)) stack.push((node as Record<string, unknown>)[k]);
    }
  }
  if (pending > 0) c.charge(pending);
}

/** Charges one step per node of `v` (see walkCharged); used before handing `v` to an encoder. */
export function chargeWalk(c: CallContext, v: unknown): void {
  walkCharged(c, v);
}
