/**
 * Charging the step budget while walking a template value (issue 14 finding 4): a value built in a
 * few steps can hold 2^40 leaves through shared references (`$a = list $a $a`), or a cycle
 * (`set $d "self" $d`), so every function that walks a value pays one step per node as it goes and
 * stops with the usual limit error instead of running for minutes.
 *
 * The budget is the one of budget.ts (issue 14 finding 4): `ctx.charge` and budget.ts's chargeWalk
 * count against the same steps. This file adds what Sprig's walkers need on top: an explicit walk
 * that finds cycles (Go's JSON encoder reports them; `deepCopy` must not recurse forever).
 */
import { EvalFailure } from '../errors.js';
import type { CallContext } from '../types.js';
import { isMap } from '../values.js';

const BATCH = 256;

/** Marks the end of a container's children on the walk stack. */
class Exit {
  constructor(readonly node: object) {}
}

/**
 * Calls `visit` for every node of `v` (depth first), charging one step per node to `c` in batches
 * of 256. Arrays, plain maps and Maps are entered; anything else is a leaf. A container met again
 * inside itself is a cycle: `onCycle` is called with it when given (it should throw), otherwise
 * the walk goes on until the budget stops it. Throws the budget's EvalFailure (a bound) when the
 * step limit is exceeded.
 */
export function walkCharged(
  c: CallContext, v: unknown, visit?: (node: unknown) => void, onCycle?: (node: object) => void,
): void {
  const stack: unknown[] = [v];
  const onPath = new Set<object>();
  let pending = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (node instanceof Exit) {
      onPath.delete(node.node);
      continue;
    }
    if (++pending === BATCH) {
      c.charge(pending);
      pending = 0;
    }
    visit?.(node);
    const container = Array.isArray(node) || isMap(node);
    if (!container) continue;
    if (onPath.has(node as object)) {
      onCycle?.(node as object);
      continue;
    }
    onPath.add(node as object);
    stack.push(new Exit(node as object));
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
    } else if (node instanceof Map) {
      for (const x of node.values()) stack.push(x);
    } else {
      for (const k in node as object) if (Object.hasOwn(node as object, k)) stack.push((node as Record<string, unknown>)[k]);
    }
  }
  if (pending > 0) c.charge(pending);
}

/**
 * Charges one step per node of `v` (see walkCharged); used before handing `v` to an encoder or a
 * comparison. With `cycleError`, a cyclic value fails with that (ordinary, non-bound) message.
 */
export function chargeWalk(c: CallContext, v: unknown, cycleError?: (node: object) => string): void {
  walkCharged(c, v, undefined, cycleError ? (node) => { throw new EvalFailure(cycleError(node)); } : undefined);
}
