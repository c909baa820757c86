/** Runs every table of template cases under cases/. */
import { describe, it } from 'vitest';
import * as builtins from './cases/builtins.cases.js';
import * as errors from './cases/errors.cases.js';
import * as escaping from './cases/escaping.cases.js';
import * as listmonk from './cases/listmonk.cases.js';
import * as sprig from './cases/sprig.cases.js';
import * as syntax from './cases/syntax.cases.js';
import type { Case } from './cases/types.js';
import { caseName, runCase } from './run-case.js';

const suites: Record<string, Record<string, Case[]>> = { syntax, builtins, sprig, listmonk, escaping, errors };

for (const [suite, groups] of Object.entries(suites)) {
  describe(suite, () => {
    for (const [group, list] of Object.entries(groups)) {
      describe(group, () => {
        it.each(list.map((c) => [caseName(c), c] as const))('%s', (_n, c) => runCase(c));
      });
    }
  });
}
