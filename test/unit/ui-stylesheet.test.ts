/**
 * The admin stylesheet parses without a warning. A block left open (a lost `}` after a merge) does not
 * stop the build; it silently moved every later section (dashboard charts, users, roles, logs) inside a
 * desktop-only media query, so phones got unstyled charts and tables. esbuild, which bundles the
 * stylesheet, reports such slips as warnings: none are allowed.
 */
import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('src/ui/static/admin.css', () => {
  it('parses without warnings (every block closed)', async () => {
    const css = readFileSync(new URL('../../src/ui/static/admin.css', import.meta.url), 'utf8');
    const result = await transform(css, { loader: 'css' });
    expect(result.warnings.map((w) => `${w.location?.line}: ${w.text}`)).toEqual([]);
  });
});
