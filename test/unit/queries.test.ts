import { describe, expect, it } from 'vitest';
import { bindNamedParams, parseQueryFile, positionalParams, withOrder } from '../../src/db/queries.js';

describe('named queries', () => {
  it('binds :name to $n, skipping casts, literals, identifiers, comments and dollar quotes', () => {
    const q = bindNamedParams('q', `SELECT :a::int, ':b', ":c", $$ :d $$, x -- :e\n, /* :f */ :a, :g`);
    expect(q.text).toBe(`SELECT $1::int, ':b', ":c", $$ :d $$, x -- :e\n, /* :f */ $1, $2`);
    expect(q.params).toEqual(['a', 'g']);
  });

  it('orders values and refuses a missing parameter', () => {
    const q = bindNamedParams('q', 'SELECT :x, :y');
    expect(positionalParams(q, { y: 2, x: 1 })).toEqual([1, 2]);
    expect(positionalParams(q, { x: undefined, y: null })).toEqual([null, null]);
    expect(() => positionalParams(q, { x: 1 })).toThrow(/needs parameter "y"/);
  });

  it('splits a file by -- name: markers and refuses duplicates', () => {
    const all = parseQueryFile('-- name: a\nSELECT 1;\n\n-- name: b\n-- doc\nSELECT :x;\n', 'f.sql');
    expect([...all.keys()]).toEqual(['a', 'b']);
    expect(all.get('b')?.text).toBe('-- doc\nSELECT $1');
    expect(() => parseQueryFile('-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;', 'f.sql')).toThrow(/defined twice/);
  });

  it('substitutes an allow-listed ORDER BY', () => {
    const q = bindNamedParams('q', 'SELECT 1 ORDER BY %order%');
    expect(withOrder(q, 'id DESC').text).toBe('SELECT 1 ORDER BY id DESC');
    expect(() => withOrder(bindNamedParams('q', 'SELECT 1'), 'id')).toThrow(/no %order% marker/);
  });
});
