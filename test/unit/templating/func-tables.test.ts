/**
 * Each template function is defined in exactly one table (src/templating/funcs/index.ts), so what a
 * template calls is what the table that defines it says; only Sprig's `slice` replaces Go's built-in,
 * as in listmonk. Shadowed copies left behind once hid which implementation ran.
 */
import { describe, expect, it } from 'vitest';
import { GO_BUILTINS } from '../../../src/templating/funcs/builtins.js';
import { LISTMONK_FUNCS } from '../../../src/templating/funcs/listmonk.js';
import { SPRIG_COLLECTIONS } from '../../../src/templating/funcs/sprig-collections.js';
import { SPRIG_CRYPTO } from '../../../src/templating/funcs/sprig-crypto.js';
import { SPRIG_DATA } from '../../../src/templating/funcs/sprig-data.js';
import { SPRIG_DATE } from '../../../src/templating/funcs/sprig-date.js';
import { SPRIG_LISTS } from '../../../src/templating/funcs/sprig-lists.js';
import { SPRIG_MATH } from '../../../src/templating/funcs/sprig-math.js';
import { SPRIG_MORE } from '../../../src/templating/funcs/sprig-more.js';
import { SPRIG_REGEX } from '../../../src/templating/funcs/sprig-regex.js';
import { SPRIG_SEMVER } from '../../../src/templating/funcs/sprig-semver.js';
import { SPRIG_STRINGS } from '../../../src/templating/funcs/sprig-strings.js';
import { SPRIG_TEXT } from '../../../src/templating/funcs/sprig-text.js';
import { SPRIG_URL } from '../../../src/templating/funcs/sprig-url.js';

describe('template function tables', () => {
  it('define each name once (Sprig replacing Go\'s slice aside)', () => {
    const tables = { GO_BUILTINS, LISTMONK_FUNCS, SPRIG_COLLECTIONS, SPRIG_CRYPTO, SPRIG_DATA, SPRIG_DATE, SPRIG_LISTS, SPRIG_MATH, SPRIG_MORE, SPRIG_REGEX, SPRIG_SEMVER, SPRIG_STRINGS, SPRIG_TEXT, SPRIG_URL };
    const owner = new Map<string, string>();
    const twice: string[] = [];
    for (const [table, funcs] of Object.entries(tables)) {
      for (const name of Object.keys(funcs)) {
        const first = owner.get(name);
        if (first !== undefined && name !== 'slice') twice.push(`${name}: ${first} and ${table}`);
        owner.set(name, table);
      }
    }
    expect(twice).toEqual([]);
  });
});
