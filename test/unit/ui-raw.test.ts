/**
 * Raw HTML goes only through src/ui/raw.ts (issue 16: "raw HTML only through one named, reviewed
 * helper"): no other file under src/ may use `dangerouslySetInnerHTML`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|js|mjs)$/u.test(f) ? [p] : [];
  });
}

it('dangerouslySetInnerHTML appears only in src/ui/raw.ts', () => {
  const offenders = files(SRC)
    .filter((f) => readFileSync(f, 'utf8').includes('dangerouslySetInnerHTML'))
    .map((f) => relative(SRC, f));
  expect(offenders).toEqual(['ui/raw.ts']);
});
