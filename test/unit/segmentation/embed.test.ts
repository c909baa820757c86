/**
 * What is executed is what was validated: the generated SQL, placed in a real query template,
 * cannot close the template's parenthesis, comment out the rest of the statement, add a statement
 * or change how the permission filter binds. Checked by parsing the embedded statement with the
 * real PostgreSQL parser for every accepted expression.
 */
import { parse, scan } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, embedQuery, type CompiledQuery,
} from '../../../src/segmentation/index.js';
import { canonicalJson } from '../../../src/segmentation/wrapper.js';
import { ACCEPTED } from './corpus-accepted.js';

const TEMPLATE = `SELECT subscribers.id FROM subscribers
LEFT JOIN subscriber_lists ON subscriber_lists.subscriber_id = subscribers.id
  AND subscriber_lists.list_id = ANY($1::int[])
WHERE subscribers.id = ANY($2::int[]) AND %query%
ORDER BY subscribers.id LIMIT 10`;

type Obj = Record<string, unknown>;

async function whereOf(sql: string): Promise<Obj> {
  const { stmts } = await parse(sql);
  expect(stmts).toHaveLength(1);
  const select = (stmts?.[0]?.stmt as Obj)['SelectStmt'] as Obj;
  expect(select['sortClause']).toBeDefined(); // the ORDER BY after %query% survived
  expect(select['limitCount']).toBeDefined();
  return select['whereClause'] as Obj;
}

/** The canonical tree of `sql` parsed on its own as a WHERE clause. */
async function expressionTree(sql: string): Promise<string> {
  return canonicalJson(await whereOf(`SELECT 1 FROM subscribers WHERE ${sql} ORDER BY 1 LIMIT 1`));
}

describe('embedding compiled expressions', () => {
  it.each(ACCEPTED.map((c) => [c.q, c] as const))('keeps %j inside its parentheses', async (_q, c) => {
    const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
    const where = await whereOf(embedQuery(TEMPLATE, compiled));
    const and = where['BoolExpr'] as Obj;
    expect(and['boolop']).toBe('AND_EXPR');
    const [permission, expression, extra] = and['args'] as unknown[];
    expect(extra).toBeUndefined();
    expect(canonicalJson(permission)).toBe(await expressionTree('subscribers.id = ANY($2::int[])'));
    expect(canonicalJson(expression)).toBe(await expressionTree(compiled?.sql ?? ''));
  });

  it.each(ACCEPTED.map((c) => [c.q, c] as const))('generates no comment, separator or parameter for %j', async (_q, c) => {
    const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
    const { tokens } = await scan(compiled?.sql ?? '');
    const names = new Set(tokens.map((t) => t.tokenName));
    for (const bad of ['SQL_COMMENT', 'C_COMMENT', 'ASCII_59', 'PARAM']) expect(names.has(bad)).toBe(false);
  });

  it('substitutes TRUE when there is no expression', () => {
    expect(embedQuery('SELECT 1 WHERE %query%', null)).toBe('SELECT 1 WHERE TRUE');
  });

  it('does not substitute a %query% marker that appears inside the expression', async () => {
    const compiled = await compileSubscriberQuery("subscribers.name = '%query%'");
    const sql = embedQuery('SELECT 1 FROM subscribers WHERE %query% AND subscribers.id > 0', compiled);
    expect(sql).toBe(`SELECT 1 FROM subscribers WHERE (\n("subscribers"."name" = E'%query%')\n) AND subscribers.id > 0`);
  });

  it('refuses a template without exactly one marker', async () => {
    const compiled = await compileSubscriberQuery('true');
    expect(() => embedQuery('SELECT 1', compiled)).toThrow('exactly once');
    expect(() => embedQuery('SELECT 1 WHERE %query% OR %query%', compiled)).toThrow('exactly once');
  });

  it('refuses a hand-made look-alike of a compiled expression', () => {
    const forged: CompiledQuery = { text: 'x', sql: 'true) OR (true', usesSubscriberLists: false };
    expect(() => embedQuery('SELECT 1 WHERE %query%', forged)).toThrow('only expressions returned by compileSubscriberQuery');
  });

  it('returns a frozen object, so the SQL cannot be swapped after validation', async () => {
    const compiled = await compileSubscriberQuery('true');
    expect(Object.isFrozen(compiled)).toBe(true);
  });
});
