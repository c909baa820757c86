/**
 * The guarded runner's contract, with a scripted TxRunner: timeout validation, the read-only and
 * timeout settings it demands, and how database errors become 400s (or stay 500s).
 * Real databases are exercised in test/integration/segmentation.
 */
import { describe, expect, it } from 'vitest';
import {
  GuardSetupError, mapExpressionError, QueryRefusedError, runGuarded, type Queryable, type TxRunner,
} from '../../../src/segmentation/index.js';
import { redactValues } from '../../../src/segmentation/run-guarded.js';

interface Script {
  readonly settings?: { ro: string; st: string };
  readonly fail?: Error;
}

function scripted(script: Script): TxRunner & { readonly calls: string[]; readonly opts: unknown[] } {
  const calls: string[] = [];
  const opts: unknown[] = [];
  const q: Queryable = {
    async query<R>(text: string, params?: unknown[]): Promise<R[]> {
      calls.push(params === undefined ? text : `${text} ${JSON.stringify(params)}`);
      // set_config answers the value as current_setting formats it ('250ms'); a real transaction keeps it.
      if (text.includes('set_config')) return [{ ro: 'on', st: `${String(params?.[0])}ms` } as R];
      if (text.includes('current_setting')) return [(script.settings ?? { ro: 'on', st: '250ms' }) as R];
      if (text === 'SELECT work' && script.fail !== undefined) throw script.fail;
      return [];
    },
  };
  return { calls, opts, tx: async (fn, o) => { opts.push(o); return fn(q); } };
}

const dbError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('runGuarded', () => {
  it('opens a read-only transaction, sets and verifies the timeout, then runs the statement', async () => {
    const db = scripted({});
    await runGuarded(db, 'SELECT work', [1], { timeoutMs: 250 });
    expect(db.opts).toEqual([{ readOnly: true }]);
    expect(db.calls[0]).toContain("set_config('transaction_read_only', 'on', true)");
    expect(db.calls[0]).toContain("set_config('statement_timeout', $1, true)");
    expect(db.calls[0]).toContain('["250"]');
    expect(db.calls[1]).toContain('current_setting');
    expect(db.calls[2]).toBe('SELECT work [1]');
  });

  it('sets a role when one is configured', async () => {
    const db = scripted({});
    await runGuarded(db, 'SELECT work', [], { timeoutMs: 250, role: 'segment"reader' });
    expect(db.calls[1]).toBe('SET LOCAL ROLE "segment""reader"');
  });

  it.each([
    [{ ro: 'off', st: '250ms' }],
    [{ ro: 'on', st: '0' }],
  ])('fails with GuardSetupError when the runner gives no real transaction (%j)', async (settings) => {
    const db = scripted({ settings });
    await expect(runGuarded(db, 'SELECT work', [], { timeoutMs: 250 })).rejects.toBeInstanceOf(GuardSetupError);
    expect(db.calls).not.toContain('SELECT work []');
  });

  it.each([0, -1, 1.5, Number.NaN, 3_600_001])('rejects timeoutMs %s', async (ms) => {
    await expect(runGuarded(scripted({}), 'SELECT work', [], { timeoutMs: ms })).rejects.toBeInstanceOf(RangeError);
  });

  it('maps an expression error to a 400 and keeps other errors as they are', async () => {
    const regex = scripted({ fail: dbError('2201B', 'invalid regular expression: parentheses () not balanced') });
    await expect(runGuarded(regex, 'SELECT work', [], { timeoutMs: 250 })).rejects.toThrow(
      'query: the expression failed: invalid regular expression: parentheses () not balanced',
    );
    const lost = dbError('08006', 'connection lost');
    await expect(runGuarded(scripted({ fail: lost }), 'SELECT work', [], { timeoutMs: 250 })).rejects.toBe(lost);
  });
});

describe('mapExpressionError', () => {
  it('reports a statement timeout with the limit in milliseconds', () => {
    const err = mapExpressionError(dbError('57014', 'canceling statement due to statement timeout'), 5000);
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect(err?.message).toBe('query: the expression took longer than 5000 ms');
    expect(err?.reason).toBe('timeout');
    expect(err?.statusCode).toBe(400);
  });

  it.each([
    ['22012', 'division by zero', 'query: the expression failed: division by zero'],
    ['22P02', 'invalid input syntax for type integer: "alice@example.com"', 'query: the expression failed: invalid input syntax for type integer: "…"'],
    ['22007', 'invalid value "secret" for "YYYY"', 'query: the expression failed: invalid value "…" for "…"'],
    ['22008', 'date/time field value out of range: "2024-13-45"', 'query: the expression failed: date/time field value out of range: "…"'],
    ['42883', 'operator does not exist: text > integer', 'query: the expression failed: operator does not exist: text > integer'],
    ['42804', 'argument of AND must be type boolean, not type integer', 'query: the expression failed: argument of AND must be type boolean, not type integer'],
    ['42809', 'op ANY/ALL (array) requires array on right side', 'query: the expression failed: op ANY/ALL (array) requires array on right side'],
    ['54001', 'stack depth limit exceeded', 'query: the expression failed: stack depth limit exceeded'],
    ['25006', 'cannot execute nextval() in a read-only transaction', 'query: the expression tried to write, which is not allowed'],
    ['53200', 'out of memory', 'query: the expression needs too much memory'],
  ])('maps SQLSTATE %s to a 400 without stored values', (code, message, expected) => {
    const err = mapExpressionError(dbError(code, message), 5000);
    expect(err?.message).toBe(expected);
    expect(err?.reason).toBe('failed');
  });

  it.each(['08006', '57P01', '40P01', '42501', '42P01', 'XX000'])('leaves SQLSTATE %s to the 500 handler', (code) => {
    expect(mapExpressionError(dbError(code, 'x'), 5000)).toBeUndefined();
  });

  it('leaves errors without a SQLSTATE alone and passes refusals through', () => {
    expect(mapExpressionError(new TypeError('bug'), 5000)).toBeUndefined();
    expect(mapExpressionError('text', 5000)).toBeUndefined();
    const refused = new QueryRefusedError('x');
    expect(mapExpressionError(refused, 5000)).toBe(refused);
  });

  it('redacts doubled quotes inside quoted values too', () => {
    expect(redactValues('bad value "a""b" here')).toBe('bad value "…" here');
  });
});
