/**
 * The segmentation guard: the only way a user's `query` SQL expression reaches the database.
 * Compile it (validate + regenerate), embed the generated SQL in a named query, run it guarded.
 * See README.md in this folder for the invariants and the residual risks.
 */
export {
  compileMatchedIds, compileSubscriberQuery, isCompiledQuery, type CompiledQuery, type CompileOptions,
} from './compile.js';
export { embedQuery, QUERY_MARKER } from './embed.js';
export { QueryRefusedError, type QueryRefusalReason } from './errors.js';
export {
  EMBEDDED_LIMITS, SERVER_LIMITS, limitsForStore, type GuardLimits, type StoreKind,
} from './limits.js';
export { normalizeQueryText } from './lexical.js';
export {
  DEFAULT_QUERY_TIMEOUT_MS, GuardSetupError, guardedTx, mapExpressionError, runGuarded,
  type GuardedOptions, type Queryable, type TxRunner,
} from './run-guarded.js';
export {
  FIRST_STEP_SPAN, MAX_STEP_SPAN, STEP_TARGET_MS, steppedIds, type SteppedOptions, type SteppedRun,
} from './stepped.js';
