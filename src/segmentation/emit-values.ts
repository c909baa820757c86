/**
 * Checked emitters for value nodes: literals, column references, casts, CURRENT_DATE-style keywords,
 * ARRAY[…] and subscripts. Each validates its node against the allow-lists (allow-list.ts) and
 * returns SQL built only from the guard's own tokens: quoted allow-listed names, `E'…'` literals,
 * decimal numbers and keywords. Negative numbers are parenthesised so no `--` can form.
 */
import {
  APP_TYPES, CATALOG_TYPES, SQL_VALUE_FUNCTIONS, SUBSELECT_TABLES, TABLE_COLUMNS, type SegmentTable,
} from './allow-list.js';
import { refuse } from './errors.js';
import { treeFacts } from './patterns.js';
import {
  isObj, listOf, namesOf, onlyKeys, quoteIdent, quoteLiteral, stringOf, unwrap,
  type EmitContext, type Handler, type SubSelectScope,
} from './emit-support.js';

const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A literal: NULL, integer, decimal, boolean, string, or bit string. */
export const emitConst: Handler = (body) => {
  const kinds = Object.keys(body).filter((k) => k !== 'location');
  const kind = kinds[0];
  if (kinds.length !== 1 || kind === undefined) refuse('the expression has an unexpected literal');
  const inner = body[kind];
  const v = isObj(inner) ? inner[kind] : inner;
  switch (kind) {
    case 'isnull': return 'NULL';
    case 'boolval': return v === true ? 'TRUE' : 'FALSE';
    case 'sval': return quoteLiteral(typeof v === 'string' ? v : '');
    case 'ival': return emitNumber(String(v ?? 0));
    case 'fval': return emitNumber(String(v ?? ''));
    case 'bsval': return emitBitString(String(v ?? ''));
    default: return refuse('the expression has an unexpected literal');
  }
};

function emitNumber(text: string): string {
  if (!DECIMAL.test(text)) refuse(`number ${text} is not supported; write it in plain decimal`);
  return text.startsWith('-') ? `(${text})` : text;
}

function emitBitString(text: string): string {
  if (/^b[01]*$/.test(text)) return `B'${text.slice(1)}'`;
  if (/^x[0-9a-fA-F]*$/.test(text)) return `X'${text.slice(1)}'`;
  return refuse('the expression has an unexpected bit-string literal');
}

/**
 * A column reference, emitted fully qualified (`"subscribers"."email"`) so that it means the same
 * column whatever else the embedding statement joins. Unqualified names are accepted when exactly
 * one table in scope has that column (`email`, `attribs`, `list_id`…); `status`, `created_at` and
 * `updated_at` are ambiguous while filtering by list and must then be qualified. An unqualified
 * reference is rewritten in place to its qualified form (the round-trip check relies on this).
 */
export const emitColumnRef: Handler = (body, ctx) => {
  onlyKeys(body, ['fields', 'location'], 'column reference');
  ctx.columnRefs += 1;
  if (ctx.columnRefs > ctx.limits.maxColumnRefs) {
    refuse(`too many column references (at most ${ctx.limits.maxColumnRefs})`);
  }
  const parts = listOf(body, 'fields').map((f) => {
    if (unwrap(f)[0] === 'A_Star') refuse('"*" is not allowed');
    return stringOf(f);
  });
  const [first, second] = parts;
  if (first === undefined) return refuse('the expression has an empty column reference');
  if (parts.length > 2) refuse(`schema-qualified name "${parts.join('.')}" is not allowed`);
  const inner = ctx.scope === null ? null : resolveInSubSelect(first, second, ctx.scope);
  if (inner !== null) {
    const [name, column] = inner;
    if (second === undefined) body['fields'] = [{ String: { sval: name } }, { String: { sval: column } }];
    return `${quoteIdent(name)}.${quoteIdent(column)}`;
  }
  const table = second === undefined ? resolveUnqualified(first, ctx) : checkTable(first, ctx);
  const column = second ?? first;
  if (!TABLE_COLUMNS[table].includes(column)) refuse(`column "${table}.${column}" is not allowed`);
  ctx.usedTables.add(table);
  // Record the resolution in the tree itself, so the round-trip check compares resolved trees.
  if (second === undefined) body['fields'] = [{ String: { sval: table } }, { String: { sval: column } }];
  return `${quoteIdent(table)}.${quoteIdent(column)}`;
};

/**
 * Resolves a column inside a sub-select, as PostgreSQL does: a name of the sub-select's FROM clause
 * first (by alias when it has one), then the outer tables. Returns [FROM-item name, column], or null
 * for an outer reference. An unqualified column must be an allowed column of exactly one FROM item
 * (falling back to the outer tables could bind a name PostgreSQL binds to the inner table).
 */
function resolveInSubSelect(first: string, second: string | undefined, scope: SubSelectScope): [string, string] | null {
  if (second === undefined) {
    const owners = [...scope.items].filter(([, table]) => SUBSELECT_TABLES[table]?.includes(first));
    if (owners.length > 1) refuse(`column "${first}" is ambiguous; write ${owners.map(([n]) => `${n}.${first}`).join(' or ')}`);
    const [owner] = owners;
    if (owner === undefined) {
      refuse(`column "${first}" is not allowed here; inside a sub-select qualify it (e.g. subscribers.${first}, or <table>.${first} for a table of the sub-select)`);
    }
    checkVisible(owner[0], scope);
    return [owner[0], first];
  }
  const table = scope.items.get(first);
  if (table === undefined) {
    const aliased = [...scope.items].find(([, t]) => t === first);
    if (aliased !== undefined) refuse(`table "${first}" has the alias "${aliased[0]}" in this sub-select; write ${aliased[0]}.${second}`);
    return null;
  }
  if (!(SUBSELECT_TABLES[table] ?? []).includes(second)) {
    refuse(`column "${table}.${second}" is not allowed in a sub-select (allowed: ${(SUBSELECT_TABLES[table] ?? []).join(', ')})`);
  }
  checkVisible(first, scope);
  return [first, second];
}

/** Refuses a reference, inside a join's ON condition, to a table outside that join (a PostgreSQL error). */
function checkVisible(name: string, scope: SubSelectScope): void {
  if (scope.visible !== null && !scope.visible.has(name)) {
    refuse(`the ON condition of a join can only use the tables of that join, not "${name}"`);
  }
}

/** How each sub-select table is reached from the subscriber, for refusal messages. */
const SUBSELECT_EXAMPLES: Readonly<Record<string, string>> = {
  campaign_views: 'EXISTS (SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id = subscribers.id AND …)',
  link_clicks: 'EXISTS (SELECT 1 FROM link_clicks WHERE link_clicks.subscriber_id = subscribers.id AND …)',
  bounces: 'EXISTS (SELECT 1 FROM bounces WHERE bounces.subscriber_id = subscribers.id AND …)',
  subscriber_lists: 'EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_lists.subscriber_id = subscribers.id AND …)',
  links: 'EXISTS (SELECT 1 FROM link_clicks JOIN links ON links.id = link_clicks.link_id WHERE link_clicks.subscriber_id = subscribers.id AND …)',
  lists: 'EXISTS (SELECT 1 FROM subscriber_lists JOIN lists ON lists.id = subscriber_lists.list_id WHERE subscriber_lists.subscriber_id = subscribers.id AND …)',
  campaigns: 'EXISTS (SELECT 1 FROM campaign_views JOIN campaigns ON campaigns.id = campaign_views.campaign_id WHERE campaign_views.subscriber_id = subscribers.id AND …)',
};

function checkTable(name: string, ctx: EmitContext): SegmentTable {
  if (name !== 'subscribers' && name !== 'subscriber_lists') {
    const example = SUBSELECT_EXAMPLES[name];
    if (example !== undefined) refuse(`table "${name}" can only be used inside a sub-select, e.g. ${example}`);
    refuse(`table "${name}" is not allowed`);
  }
  if (!ctx.tables.has(name)) {
    refuse(`table "${name}" can only be used when filtering by list, or inside a sub-select, e.g. ${SUBSELECT_EXAMPLES['subscriber_lists'] ?? ''}`);
  }
  return name;
}

function resolveUnqualified(column: string, ctx: EmitContext): SegmentTable {
  const owners = [...ctx.tables].filter((t) => TABLE_COLUMNS[t].includes(column));
  const [owner] = owners;
  if (owners.length > 1) {
    refuse(`column "${column}" is ambiguous; write ${owners.map((t) => `${t}.${column}`).join(' or ')}`);
  }
  if (owner !== undefined) return owner;
  if (TABLE_COLUMNS.subscriber_lists.includes(column)) {
    refuse(`column "${column}" can only be used when filtering by list`);
  }
  return refuse(`column "${column}" is not allowed`);
}

/**
 * `CAST(x AS type)` to an allow-listed type; `regclass` and other catalog types are refused, and
 * only constants may be cast to array types.
 */
export const emitTypeCast: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['arg', 'typeName', 'location'], 'cast');
  const type = emitTypeName(body['typeName']);
  // An array parsed from stored text could be of any size (see allow-list.ts on string_to_array).
  if (type.endsWith(']') && treeFacts(body['arg']).columns > 0) refuse('casting column values to arrays is not allowed');
  return `CAST(${ctx.emit(body['arg'], depth + 1)} AS ${type})`;
};

function emitTypeName(node: unknown): string {
  if (!isObj(node)) return refuse('the expression has an unexpected type name');
  if (node['setof'] === true) refuse('SETOF is not allowed');
  onlyKeys(node, ['names', 'typmods', 'typemod', 'arrayBounds', 'location'], 'type name');
  if (node['typemod'] !== undefined && node['typemod'] !== -1) refuse('type modifiers are not allowed');
  const names = namesOf(node, 'names');
  const mods = listOf(node, 'typmods').map(typmodOf);
  const bounds = listOf(node, 'arrayBounds').map(arrayBoundOf);
  const suffix = (mods.length > 0 ? `(${mods.join(', ')})` : '') + bounds.join('');
  const [a, b] = names;
  if (names.length === 1 && a !== undefined && APP_TYPES.has(a)) return quoteIdent(a) + suffix;
  const base = names.length === 2 && a === 'pg_catalog' ? b : names.length === 1 ? a : undefined;
  if (base === undefined || !CATALOG_TYPES.has(base)) refuse(`type "${names.join('.')}" is not allowed`);
  return `pg_catalog.${quoteIdent(base)}${suffix}`;
}

function typmodOf(node: unknown): string {
  const [type, body] = unwrap(node);
  const ival = isObj(body['ival']) ? (body['ival']['ival'] ?? 0) : undefined;
  if (type !== 'A_Const' || typeof ival !== 'number' || !Number.isInteger(ival) || ival < 0) {
    refuse('type modifiers must be plain numbers');
  }
  return String(ival);
}

function arrayBoundOf(node: unknown): string {
  const [type, body] = unwrap(node);
  const ival = body['ival'] ?? 0;
  if (type !== 'Integer' || typeof ival !== 'number' || !Number.isInteger(ival) || ival < -1) {
    refuse('the expression has an unexpected array bound');
  }
  return ival < 0 ? '[]' : `[${ival}]`;
}

/** CURRENT_DATE, CURRENT_TIMESTAMP(p), LOCALTIMESTAMP… (the role and schema ones are refused). */
export const emitSqlValueFunction: Handler = (body) => {
  onlyKeys(body, ['op', 'typmod', 'location'], 'SQL value function');
  const op = String(body['op']);
  const keyword = SQL_VALUE_FUNCTIONS[op];
  if (keyword === undefined) {
    refuse(`"${op.replace(/^SVFOP_/, '').toLowerCase()}" is not allowed`);
  }
  if (!op.endsWith('_N')) return keyword;
  const typmod = body['typmod'] ?? 0;
  if (typeof typmod !== 'number' || !Number.isInteger(typmod) || typmod < 0) {
    refuse('the expression has an unexpected precision');
  }
  return `${keyword}(${typmod})`;
};

/** `ARRAY[a, b, …]` (nested arrays included). */
export const emitArray: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['elements', 'location', 'list_start', 'list_end'], 'array');
  const items = listOf(body, 'elements').map((e) => ctx.emit(e, depth + 1));
  return `ARRAY[${items.join(', ')}]`;
};

/** Subscripts and slices: `(x)[i]`, `(x)[a:b]`, `(attribs)['key']`. Field selection is refused. */
export const emitIndirection: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['arg', 'indirection'], 'subscript');
  const arg = ctx.emit(body['arg'], depth + 1);
  const subs = listOf(body, 'indirection').map((n) => emitIndices(n, ctx, depth + 1));
  if (subs.length === 0) refuse('the expression has an empty subscript');
  return `(${arg})${subs.join('')}`;
};

function emitIndices(node: unknown, ctx: EmitContext, depth: number): string {
  const [type, body] = unwrap(node);
  if (type === 'String') refuse('field selection (x).field is not allowed');
  if (type === 'A_Star') refuse('"*" is not allowed');
  if (type !== 'A_Indices') refuse('the expression has an unexpected subscript');
  onlyKeys(body, ['is_slice', 'lidx', 'uidx'], 'subscript');
  if (body['is_slice'] !== true && body['lidx'] !== undefined) refuse('the expression has an unexpected subscript');
  const part = (key: string): string => (body[key] === undefined ? '' : ctx.emit(body[key], depth));
  return body['is_slice'] === true ? `[${part('lidx')}:${part('uidx')}]` : `[${part('uidx')}]`;
}
