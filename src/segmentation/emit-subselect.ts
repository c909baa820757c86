/**
 * Checked emitter for sub-selects: engagement and membership segmentation (issue 15 item 6), e.g.
 * listmonk's documented `EXISTS(SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id =
 * subscribers.id AND campaign_views.campaign_id = 5)`.
 *
 * Accepted: `[NOT] EXISTS (SELECT …)` and `subscribers.id [NOT] IN (SELECT t.subscriber_id …)`, one level
 * deep, over the tables and columns of SUBSELECT_TABLES, with a FROM clause of tables joined by
 * `[INNER|LEFT] JOIN … ON …` or commas, and a WHERE clause checked like the rest of the expression.
 * Every table must be tied to the subscriber: by `t.subscriber_id = subscribers.id` (EXISTS), as the
 * table whose `subscriber_id` IN selects, or by a key to a table already tied (`links.id =
 * link_clicks.link_id`, `a.subscriber_id = b.subscriber_id`), each an equality ANDed at the top of the
 * WHERE clause or of a join's ON condition. So a sub-select reads only one subscriber's rows (EXISTS:
 * an index lookup per subscriber, migration 0010) or one filtered set of them (IN), never a cross
 * product. `LIMIT <number>` is accepted. Refused, each naming what: other tables (users, sessions,
 * settings, the catalog, `subscribers` itself…), scalar and ARRAY sub-selects, `op ANY/ALL (SELECT …)`,
 * WITH, set operations, GROUP BY, HAVING, ORDER BY, OFFSET, DISTINCT, window clauses, FOR UPDATE,
 * sub-selects in FROM, LATERAL, NATURAL/USING joins and nested sub-selects. Like everything else, the sub-select is regenerated from
 * the checked tree (tables and aliases quoted, every column qualified by its FROM-item name).
 */
import { MAX_SUBSELECT_TABLES, SUBSELECT_KEYS, SUBSELECT_TABLES } from './allow-list.js';
import { refuse } from './errors.js';
import {
  isObj, listOf, namesOf, onlyKeys, quoteIdent, stringOf, unwrap, type EmitContext, type Handler, type Obj,
  type SubSelectScope,
} from './emit-support.js';

/** `SelectStmt` fields refused in a sub-select, with the reason given. */
const SELECT_PARTS: ReadonlyArray<[string, string]> = [
  ['withClause', 'WITH is not allowed in a sub-select'],
  ['larg', 'set operations (UNION, INTERSECT, EXCEPT) are not allowed'],
  ['rarg', 'set operations (UNION, INTERSECT, EXCEPT) are not allowed'],
  ['intoClause', 'SELECT INTO is not allowed'],
  ['distinctClause', 'DISTINCT is not allowed in a sub-select'],
  ['groupClause', 'GROUP BY is not allowed in a sub-select'],
  ['groupDistinct', 'GROUP BY is not allowed in a sub-select'],
  ['havingClause', 'HAVING is not allowed in a sub-select'],
  ['windowClause', 'WINDOW is not allowed in a sub-select'],
  ['valuesLists', 'VALUES is not allowed'],
  ['sortClause', 'ORDER BY is not allowed in a sub-select'],
  ['limitOffset', 'OFFSET is not allowed in a sub-select'],
  ['lockingClause', 'FOR UPDATE / FOR SHARE is not allowed'],
  ['all', 'set operations (UNION, INTERSECT, EXCEPT) are not allowed'],
];

const TABLE_LIST = Object.keys(SUBSELECT_TABLES).join(', ');

/** A SubLink: EXISTS (SELECT …) or x IN (SELECT …); every other kind is refused. */
export const emitSubLink: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['subLinkType', 'subLinkId', 'testexpr', 'operName', 'subselect', 'location'], 'sub-select');
  if (ctx.scope !== null) refuse('sub-selects inside sub-selects are not allowed; join the tables instead');
  const kind = String(body['subLinkType']);
  const isIn = kind === 'ANY_SUBLINK' && body['operName'] === undefined;
  if (kind !== 'EXISTS_SUBLINK' && !isIn) refuse(subLinkProblem(kind));
  ctx.subSelects += 1;
  if (ctx.subSelects > ctx.limits.maxSubSelects) refuse(`too many sub-selects (at most ${ctx.limits.maxSubSelects})`);
  const left = isIn ? emitInLeft(body['testexpr'], ctx, depth) : '';
  const select = selectOf(body['subselect']);
  const scope = scopeOf(listOf(select, 'fromClause'));
  ctx.scope = scope;
  try {
    const from = listOf(select, 'fromClause').map((item) => emitFromItem(item, ctx, depth + 1)).join(', ');
    const where = select['whereClause'] === undefined ? '' : ` WHERE ${ctx.emit(select['whereClause'], depth + 1)}`;
    const target = emitTarget(select, isIn, ctx, depth + 1);
    checkTied(select, scope, isIn ? target.table : null);
    const sql = `(SELECT ${target.sql} FROM ${from}${where}${limitOf(select)})`;
    return isIn ? `(${left} IN ${sql})` : `EXISTS ${sql}`;
  } finally {
    ctx.scope = null;
  }
};

/** ` LIMIT n` for a sub-select's `LIMIT <non-negative integer>` (harmless in EXISTS, listmonk users write it), or ''. */
function limitOf(select: Obj): string {
  if (select['limitCount'] === undefined) return '';
  const [type, body] = unwrap(select['limitCount']);
  const ival = isObj(body['ival']) ? (body['ival']['ival'] ?? 0) : undefined;
  if (type !== 'A_Const' || typeof ival !== 'number' || !Number.isInteger(ival) || ival < 0) {
    refuse('LIMIT in a sub-select must be a plain number');
  }
  return ` LIMIT ${ival}`;
}

function subLinkProblem(kind: string): string {
  switch (kind) {
    case 'EXPR_SUBLINK': return 'a sub-select used as a value ((SELECT …)) is not allowed; use EXISTS (SELECT …) or subscribers.id IN (SELECT …)';
    case 'ARRAY_SUBLINK': return 'ARRAY(SELECT …) is not allowed';
    case 'ALL_SUBLINK': return 'op ALL (SELECT …) is not allowed; use NOT EXISTS (SELECT …) or NOT IN (SELECT …)';
    case 'ANY_SUBLINK': return 'op ANY (SELECT …) is not allowed; use subscribers.id IN (SELECT …)';
    default: return 'this kind of sub-select is not allowed; use EXISTS (SELECT …) or subscribers.id IN (SELECT …)';
  }
}

/** The left side of `x IN (SELECT …)`: exactly `subscribers.id`. */
function emitInLeft(node: unknown, ctx: EmitContext, depth: number): string {
  const [type, ref] = unwrap(node);
  const sql = type === 'ColumnRef' ? ctx.emit(node, depth + 1) : '';
  const fields = type === 'ColumnRef' ? listOf(ref, 'fields').map(stringOf) : [];
  if (fields.join('.') !== 'subscribers.id') {
    refuse('IN (SELECT …) is only allowed as subscribers.id IN (SELECT <table>.subscriber_id FROM …)');
  }
  return sql;
}

/** The SelectStmt of a sub-select, with every clause outside the accepted shape refused. */
function selectOf(node: unknown): Obj {
  const [type, select] = unwrap(node);
  if (type !== 'SelectStmt') refuse('only SELECT is allowed in a sub-select');
  for (const [key, problem] of SELECT_PARTS) if (select[key] !== undefined && select[key] !== false) refuse(problem);
  if (select['op'] !== undefined && select['op'] !== 'SETOP_NONE') refuse('set operations (UNION, INTERSECT, EXCEPT) are not allowed');
  const limited = select['limitCount'] !== undefined;
  if (select['limitOption'] !== (limited ? 'LIMIT_OPTION_COUNT' : 'LIMIT_OPTION_DEFAULT') && select['limitOption'] !== undefined) {
    refuse('only LIMIT <number> is allowed in a sub-select (not FETCH … WITH TIES)');
  }
  onlyKeys(select, ['targetList', 'fromClause', 'whereClause', 'op', 'limitOption', 'limitCount', 'all'], 'sub-select');
  if (listOf(select, 'fromClause').length === 0) refuse('a sub-select needs a FROM clause');
  return select;
}

/** The FROM items by the name they are referred to by; refuses tables off the allow-list. */
function scopeOf(from: readonly unknown[]): SubSelectScope {
  const items = new Map<string, string>();
  const visit = (node: unknown): void => {
    const [type, body] = unwrap(node);
    if (type === 'JoinExpr') {
      visit(body['larg']);
      visit(body['rarg']);
      return;
    }
    if (type === 'RangeSubselect') refuse('sub-selects in FROM are not allowed');
    if (type === 'RangeFunction') refuse('functions in FROM are not allowed');
    if (type !== 'RangeVar') refuse(`${type} is not allowed in FROM`);
    const [name, table] = checkRangeVar(body);
    if (items.has(name)) refuse(`"${name}" appears twice in the FROM clause of a sub-select; give each an alias`);
    items.set(name, table);
  };
  for (const item of from) visit(item);
  if (items.size > MAX_SUBSELECT_TABLES) refuse(`a sub-select may read at most ${MAX_SUBSELECT_TABLES} tables`);
  return { items, visible: null };
}

/** A table reference: an allowed table, unqualified, without ONLY or column aliases. Returns [name, table]. */
function checkRangeVar(body: Obj): [string, string] {
  onlyKeys(body, ['relname', 'inh', 'relpersistence', 'alias', 'location', 'schemaname', 'catalogname'], 'table reference');
  const table = typeof body['relname'] === 'string' ? body['relname'] : '';
  if (body['schemaname'] !== undefined || body['catalogname'] !== undefined) {
    refuse(`schema-qualified table "${[body['catalogname'], body['schemaname'], table].filter((x) => x !== undefined).join('.')}" is not allowed`);
  }
  if (table === 'subscribers') refuse('table "subscribers" is not allowed in a sub-select; use the subscriber\'s columns (subscribers.…) directly');
  if (SUBSELECT_TABLES[table] === undefined) refuse(`table "${table}" is not allowed in a sub-select (allowed: ${TABLE_LIST})`);
  if (body['inh'] !== true) refuse('ONLY is not allowed');
  if (body['relpersistence'] !== 'p') refuse(`table "${table}" is not allowed in a sub-select`);
  const alias = body['alias'];
  if (alias === undefined) return [table, table];
  if (!isObj(alias)) return refuse('the expression has an unexpected table alias');
  onlyKeys(alias, ['aliasname'], 'table alias (column aliases are not allowed)');
  const name = alias['aliasname'];
  if (typeof name !== 'string' || name === '') return refuse('the expression has an unexpected table alias');
  if (name === 'subscribers' || name === 'subscriber_lists') {
    refuse(`the alias "${name}" is not allowed (it would hide the subscriber's own table)`);
  }
  return [name, table];
}

/** A FROM item: `"table"`, `"table" AS "alias"`, or `(<item> [LEFT] JOIN <item> ON <condition>)`. */
function emitFromItem(node: unknown, ctx: EmitContext, depth: number): string {
  const [type, body] = unwrap(node);
  if (type === 'RangeVar') {
    const [name, table] = checkRangeVar(body);
    return name === table ? quoteIdent(table) : `${quoteIdent(table)} AS ${quoteIdent(name)}`;
  }
  if (type !== 'JoinExpr') return refuse(`${type} is not allowed in FROM`);
  onlyKeys(body, ['jointype', 'larg', 'rarg', 'quals', 'isNatural', 'usingClause', 'alias', 'join_using_alias', 'rtindex'], 'join');
  if (body['isNatural'] === true) refuse('NATURAL JOIN is not allowed; write JOIN … ON …');
  if (body['usingClause'] !== undefined || body['join_using_alias'] !== undefined) refuse('JOIN … USING is not allowed; write JOIN … ON …');
  if (body['alias'] !== undefined) refuse('an alias on a join is not allowed');
  const word = body['jointype'] === 'JOIN_INNER' ? 'JOIN' : body['jointype'] === 'JOIN_LEFT' ? 'LEFT JOIN' : null;
  if (word === null) refuse('only JOIN and LEFT JOIN are allowed in a sub-select');
  if (body['quals'] === undefined) refuse('a join needs an ON condition (CROSS JOIN is not allowed)');
  const left = emitFromItem(body['larg'], ctx, depth + 1);
  const right = emitFromItem(body['rarg'], ctx, depth + 1);
  const scope = ctx.scope as SubSelectScope;
  const outer = scope.visible;
  scope.visible = new Set([...namesIn(body['larg']), ...namesIn(body['rarg'])]);
  try {
    return `(${left} ${word} ${right} ON ${ctx.emit(body['quals'], depth + 1)})`;
  } finally {
    scope.visible = outer;
  }
}

/** The FROM-item names inside a FROM item (already checked by scopeOf). */
function namesIn(node: unknown): string[] {
  const [type, body] = unwrap(node);
  if (type === 'JoinExpr') return [...namesIn(body['larg']), ...namesIn(body['rarg'])];
  return [checkRangeVar(body)[0]];
}

/**
 * The select list: for EXISTS one constant, `*` or allowed column; for IN exactly one subscriber id
 * column (`<table>.subscriber_id`), whose FROM item is returned as `table` (the sub-select's anchor).
 */
function emitTarget(select: Obj, isIn: boolean, ctx: EmitContext, depth: number): { sql: string; table: string | null } {
  const targets = listOf(select, 'targetList');
  const [only] = targets;
  if (targets.length !== 1 || only === undefined) refuse('a sub-select must select exactly one value');
  const [type, target] = unwrap(only);
  if (type !== 'ResTarget') refuse('the expression has an unexpected select list');
  onlyKeys(target, ['val', 'location'], 'select list (AS is not allowed)');
  const [valType, val] = unwrap(target['val']);
  if (!isIn && valType === 'ColumnRef') {
    const fields = listOf(val, 'fields');
    if (fields.length === 1 && unwrap(fields[0])[0] === 'A_Star') return { sql: '*', table: null };
  }
  if (!isIn) {
    if (valType !== 'A_Const' && valType !== 'ColumnRef') refuse('EXISTS (SELECT …) must select a constant, * or a column');
    return { sql: ctx.emit(target['val'], depth + 1), table: null };
  }
  const sql = valType === 'ColumnRef' ? ctx.emit(target['val'], depth + 1) : '';
  const fields = valType === 'ColumnRef' ? listOf(val, 'fields').map(stringOf) : [];
  const [name, column] = fields;
  const scope = ctx.scope as SubSelectScope;
  if (column !== 'subscriber_id' || name === undefined || !scope.items.has(name)) {
    refuse('subscribers.id IN (SELECT …) must select the subscriber_id of a table of the sub-select');
  }
  return { sql, table: name };
}

interface Ref { readonly name: string; readonly column: string }

/** The `a = b` column equalities ANDed at the top of `node` (a WHERE or ON condition). */
function equalities(node: unknown): Array<[Ref, Ref]> {
  if (node === undefined) return [];
  const [type, body] = unwrap(node);
  if (type === 'BoolExpr' && body['boolop'] === 'AND_EXPR') return listOf(body, 'args').flatMap(equalities);
  if (type !== 'A_Expr' || body['kind'] !== 'AEXPR_OP' || namesOf(body, 'name').join() !== '=') return [];
  const left = refOf(body['lexpr']);
  const right = refOf(body['rexpr']);
  return left !== null && right !== null ? [[left, right]] : [];
}

/** A qualified column reference (the emitter has qualified every column), or null. */
function refOf(node: unknown): Ref | null {
  if (!isObj(node) || !isObj(node['ColumnRef'])) return null;
  const fields = listOf(node['ColumnRef'], 'fields').map(stringOf);
  const [name, column] = fields;
  return fields.length === 2 && name !== undefined && column !== undefined ? { name, column } : null;
}

/** Every JoinExpr ON condition in a FROM item. */
function joinConditions(node: unknown): unknown[] {
  const [type, body] = unwrap(node);
  if (type !== 'JoinExpr') return [];
  return [body['quals'], ...joinConditions(body['larg']), ...joinConditions(body['rarg'])];
}

/**
 * Refuses a sub-select with a table not tied to the subscriber (see the module comment). `anchor` is
 * the FROM item whose subscriber_id an IN sub-select selects; EXISTS is anchored by its correlation.
 */
function checkTied(select: Obj, scope: SubSelectScope, anchor: string | null): void {
  const pairs = [select['whereClause'], ...listOf(select, 'fromClause').flatMap(joinConditions)].flatMap(equalities);
  const inner = (r: Ref): boolean => scope.items.has(r.name);
  const tied = new Set<string>(anchor === null ? [] : [anchor]);
  for (const [a, b] of pairs) {
    for (const [x, y] of [[a, b], [b, a]] as const) {
      if (inner(x) && x.column === 'subscriber_id' && !inner(y) && y.name === 'subscribers' && y.column === 'id') tied.add(x.name);
    }
  }
  if (tied.size === 0) {
    const withId = [...scope.items].find(([, t]) => SUBSELECT_TABLES[t]?.includes('subscriber_id'));
    refuse(withId === undefined
      ? 'a sub-select must be tied to the subscriber: read a table with a subscriber_id (campaign_views, link_clicks, bounces, subscriber_lists) and add <table>.subscriber_id = subscribers.id'
      : `a sub-select must be tied to the subscriber: add ${withId[0]}.subscriber_id = subscribers.id to its WHERE clause`);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const [a, b] of pairs) {
      for (const [x, y] of [[a, b], [b, a]] as const) {
        if (!inner(x) || !inner(y) || tied.has(x.name) || !tied.has(y.name)) continue;
        const table = scope.items.get(x.name) ?? '';
        const bySubscriber = x.column === 'subscriber_id' && y.column === 'subscriber_id';
        const byKey = x.column === 'id' && SUBSELECT_KEYS[y.column] === table;
        if (bySubscriber || byKey) {
          tied.add(x.name);
          grew = true;
        }
      }
    }
  }
  for (const [name, table] of scope.items) {
    if (tied.has(name)) continue;
    const key = Object.entries(SUBSELECT_KEYS).find(([, t]) => t === table)?.[0];
    refuse(key !== undefined
      ? `table "${name}" of a sub-select must be joined by its key: ${name}.id = <table>.${key}`
      : `table "${name}" of a sub-select must be tied to the subscriber: ${name}.subscriber_id = subscribers.id (or = <table>.subscriber_id)`);
  }
}
