/**
 * The step budget of the running execution, reachable from code that walks values (printing,
 * JSON, deep equality, string conversion, copies and merges) without threading a parameter
 * through every helper.
 *
 * Why (issue 14 finding 4): values can share structure. `{{ $a = list $a $a }}` forty times
 * builds 41 arrays holding 2^40 leaves, so one `print $a` walked for tens of seconds while the
 * step and output limits only looked at the call's arguments and result. Every walker now pays
 * one step per node it visits (and one per 64 characters of the strings inside containers) as it
 * goes, so such a walk stops after `maxSteps` nodes with the usual "exceeded maximum of N steps"
 * error, in milliseconds.
 *
 * execute() is synchronous, so "the running execution" is well defined: execute() installs its
 * state with {@link withBudget} and restores the previous one on exit (an execute() nested in a
 * caller's function gets its own budget). Outside any execution the charges are no-ops.
 *
 * Function authors (Sprig, listmonk, caller functions): call {@link chargeWalk} once per node
 * visited when walking a value of unbounded shape, before doing the work for that node; or
 * `ctx.charge(n)` (CallContext), which is the same budget.
 */

/** Something that counts work units and throws when a bound is exceeded (ExecState, CallContext). */
export interface Meter {
  /** Adds `units` steps; throws EvalFailure(bound) past maxSteps. */
  charge(units: number): void;
}

let active: Meter | null = null;

/** Runs `fn` with `meter` as the budget walkers charge; restores the previous one afterwards. */
export function withBudget<T>(meter: Meter, fn: () => T): T {
  const prev = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = prev;
  }
}

/**
 * Charges `units` steps (≥ 0; one per node visited) to the running execution's budget. Throws
 * EvalFailure(bound) (`exceeded maximum of N steps`) when the budget is spent; a no-op outside
 * execute().
 */
export function chargeWalk(units: number): void {
  if (active !== null) active.charge(units);
}

/**
 * Charges for a string met inside a walked container: one step per 64 characters (the rate
 * function results are charged at), so walks over many long strings stop as early as walks over
 * many nodes.
 */
export function chargeText(s: string): void {
  if (active !== null && s.length >= 64) active.charge(s.length >>> 6);
}

/**
 * Charges for a string a walker has just built from a container's parts (one step per 64
 * characters) and returns it: nested containers copy their children's text once per level, and
 * indented output grows with depth, so this keeps the charge in line with the work.
 */
export function chargeBuilt(s: string): string {
  chargeText(s);
  return s;
}
