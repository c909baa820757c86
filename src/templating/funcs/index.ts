/**
 * The function table templates see: Go built-ins, listmonk's functions and the Sprig subset, plus
 * caller functions merged over them. Nothing here reaches the environment, files or network:
 * Sprig's env/expandenv/getHostByName are deliberately absent (listmonk CVE-2025-49136), so
 * using them is a parse error like Go's `function "env" not defined`.
 */
import type { FuncMap } from '../types.js';
import { GO_BUILTINS } from './builtins.js';
import { LISTMONK_FUNCS } from './listmonk.js';
import { def, type FuncTable } from './registry.js';
import { SPRIG_LISTS } from './sprig-lists.js';
import { SPRIG_MATH } from './sprig-math.js';
import { SPRIG_COLLECTIONS } from './sprig-collections.js';
import { SPRIG_CRYPTO } from './sprig-crypto.js';
import { SPRIG_DATA } from './sprig-data.js';
import { SPRIG_DATE } from './sprig-date.js';
import { SPRIG_MORE } from './sprig-more.js';
import { SPRIG_REGEX } from './sprig-regex.js';
import { SPRIG_SEMVER } from './sprig-semver.js';
import { SPRIG_STRINGS } from './sprig-strings.js';
import { SPRIG_TEXT } from './sprig-text.js';
import { SPRIG_URL } from './sprig-url.js';

/**
 * All built-in functions by name. Each name is defined in one table, except `slice`, which Sprig's
 * table replaces as in listmonk (below).
 */
export const BUILTIN_FUNCS: Readonly<FuncTable> = Object.freeze({
  ...SPRIG_STRINGS,
  ...SPRIG_LISTS,
  ...SPRIG_MORE,
  ...SPRIG_TEXT,
  ...SPRIG_REGEX,
  ...SPRIG_DATA,
  ...SPRIG_COLLECTIONS,
  ...SPRIG_MATH,
  ...SPRIG_DATE,
  ...SPRIG_URL,
  ...SPRIG_CRYPTO,
  ...SPRIG_SEMVER,
  ...LISTMONK_FUNCS,
  ...GO_BUILTINS,
  // In listmonk the Sprig map is added over Go's built-ins, so Sprig's `slice` replaces Go's.
  slice: SPRIG_COLLECTIONS.slice as FuncTable[string],
});

/** Built-ins with `extra` merged over them (extra functions accept any number of arguments). */
export function buildFuncTable(extra?: FuncMap): FuncTable {
  const table: FuncTable = Object.assign(Object.create(null) as FuncTable, BUILTIN_FUNCS);
  for (const [name, fn] of Object.entries(extra ?? {})) {
    if (typeof fn === 'function') table[name] = def(fn, 0, Infinity);
  }
  return table;
}
