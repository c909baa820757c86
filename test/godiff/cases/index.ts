/** The differential corpus: every case, in a stable order. */
import { BUILTINS } from './builtins.js';
import { ERRORS } from './errors.js';
import { ESCAPING } from './escaping.js';
import { LISTMONK } from './listmonk.js';
import { SPRIG } from './sprig.js';
import { SYNTAX } from './syntax.js';
import type { GoCase } from './types.js';

/** All cases of the corpus. */
export const CORPUS: GoCase[] = [...SYNTAX, ...BUILTINS, ...ESCAPING, ...SPRIG, ...LISTMONK, ...ERRORS];
