/**
 * Differential test against Go itself (issue 15): every case of the corpus (test/godiff/cases) is
 * rendered by Go's html/template / text/template with Sprig, set up as listmonk sets them up
 * (test/godiff/render.go), and by Mailroom; outputs must be equal byte for byte, or both must fail.
 * A difference is allowed only when the case names why: a deliberate difference (DELIBERATE in
 * cases/types.ts, docs/differences-from-listmonk.md), a difference another helper's branch fixes
 * (`pending`), or a place where Debian's Go 1.19 / Sprig 3.2.3 cannot stand for listmonk's Go 1.26
 * / Sprig 3.3.0 (`reference`). Anything else fails the test. The summary is recorded in
 * docs/compatibility.md.
 *
 * Needs `go` and Debian's golang-github-masterminds-sprig-dev; skipped with a warning without them,
 * except in CI (.ci/run installs both).
 */
import { describe, expect, it, vi } from 'vitest';
import { CORPUS } from './cases/index.js';
import { DELIBERATE } from './cases/types.js';
import {
  buildRenderer, compare, type Comparison, goUnavailable, mailroomCatalogue, NOW, renderWithMailroom, runGo, show,
} from './harness.js';

const missing = goUnavailable();
// Skipped with a warning where Go is missing, except in CI (.ci/run installs it), where it must run.
if (missing && !process.env.CI) console.warn(`\n⚠ test/godiff/differential.test.ts SKIPPED: ${missing}\n`);

describe.runIf(missing !== null && Boolean(process.env.CI))('differential test in CI', () => {
  it('has Go and Sprig to run with', () => {
    throw new Error(`the differential template test cannot run in CI: ${missing}`);
  });
});

/** Function names a case calls (identifiers in actions), to check every registered function is used. */
function calledNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const action of text.matchAll(/\{\{(.*?)\}\}/gsu)) {
    const body = (action[1] as string).replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/gu, ' ');
    for (const m of body.matchAll(/(?<![.$\w])([A-Za-z_][A-Za-z0-9_]*)/gu)) names.add(m[1] as string);
  }
  for (const m of text.matchAll(/@(TrackLink)\b/gu)) names.add(m[1] as string);
  return names;
}

describe.skipIf(missing !== null)('differential test against Go html/template + Sprig (listmonk set-up)', () => {
  it(`renders the corpus as Go does, except for explained differences`, async () => {
    const ids = new Set<string>();
    for (const c of CORPUS) {
      expect(ids.has(c.id), `duplicate case id ${c.id}`).toBe(false);
      ids.add(c.id);
    }
    expect(CORPUS.length).toBeGreaterThanOrEqual(400);

    const bin = buildRenderer();
    const goPending = runGo(bin, CORPUS, mailroomCatalogue(CORPUS));
    // Both sides see the same fixed clock (the campaign builder reads the real one for Date and now).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    let mailroom;
    try {
      mailroom = CORPUS.map(renderWithMailroom);
    } finally {
      vi.useRealTimers();
    }
    const goRun = await goPending;
    expect(goRun.results.length).toBe(CORPUS.length);

    const results: Comparison[] = CORPUS.map((c, i) => compare(c, goRun.results[i]!, mailroom[i]!));
    const by = (v: Comparison['verdict']) => results.filter((r) => r.verdict === v);
    const agree = by('agree');
    const deliberate = by('deliberate');
    const pending = by('pending');
    const reference = by('reference');
    const unexplained = by('unexplained');

    const line = (r: Comparison) => `  - ${r.c.id}\n      go:       ${show(r.go)}\n      mailroom: ${show(r.mailroom)}`;
    const report: string[] = [
      `differential test (${goRun.goVersion}, Sprig 3.2.3 + sha512sum): ${results.length} cases`,
      `  agreeing:     ${agree.length}`,
      `  deliberate:   ${deliberate.length}`,
      `  pending others: ${pending.length} (sprig: ${pending.filter((r) => r.c.pending === 'sprig').length}, tmpl: ${pending.filter((r) => r.c.pending === 'tmpl').length})`,
      `  reference limits (Go 1.19 is not listmonk's Go 1.26): ${reference.length}`,
      `  unexplained:  ${unexplained.length}`,
    ];
    const keys = [...new Set(deliberate.map((r) => r.c.deliberate!))].sort();
    if (keys.length) {
      report.push('deliberate differences:');
      for (const k of keys) report.push(`  ${k} (${deliberate.filter((r) => r.c.deliberate === k).length}): ${DELIBERATE[k]}`);
    }
    if (pending.length) {
      report.push('expected to be fixed by other branches:');
      for (const r of pending) report.push(`  [${r.c.pending}] ${r.c.id}`);
    }
    if (reference.length) {
      report.push('reference limits:');
      for (const r of reference) report.push(`  ${r.c.id}: ${r.c.reference}`);
    }
    const stale = agree.filter((r) => r.c.deliberate || r.c.pending || r.c.reference);
    if (stale.length) {
      report.push('marked as differing but now agreeing (remove the mark):');
      for (const r of stale) report.push(`  ${r.c.id} (${r.c.deliberate ? `deliberate ${r.c.deliberate}` : r.c.pending ? `pending ${r.c.pending}` : 'reference'})`);
    }
    if (unexplained.length) {
      report.push('UNEXPLAINED differences:');
      for (const r of unexplained) report.push(line(r));
    }
    if (process.env.GODIFF_VERBOSE) {
      report.push('all differing cases:');
      for (const r of results.filter((x) => !x.same)) report.push(line(r));
    }
    console.log(report.join('\n'));

    // Every function listmonk registers is called by at least one case.
    const called = new Set<string>();
    for (const c of CORPUS) {
      const text = [c.tpl ?? '', ...(c.sources ?? []).map((s) => s.source), ...Object.values(c.campaign ?? {}).map((v) => JSON.stringify(v)), c.template ?? ''].join('\n');
      for (const n of calledNames(text.replace(/\\"/gu, '"'))) called.add(n);
    }
    expect(goRun.funcs.filter((f) => !called.has(f)), 'registered functions no case calls').toEqual([]);
    // Every deliberate difference listed is shown by at least one case.
    const shown = new Set(CORPUS.map((c) => c.deliberate));
    expect(Object.keys(DELIBERATE).filter((k) => !shown.has(k as keyof typeof DELIBERATE)), 'deliberate differences no case shows').toEqual([]);

    expect(unexplained.map((r) => `${r.c.id}: go ${show(r.go)} ≠ mailroom ${show(r.mailroom)}`)).toEqual([]);
  });
});
