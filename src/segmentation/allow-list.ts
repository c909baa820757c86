/**
 * What a subscriber `query` expression may name. Everything not listed here is refused (deny by
 * default). Source: issue "SQL segmentation guard"; columns from listmonk-behaviour §19 (`subscribers`,
 * `subscriber_lists`). Every function below was checked against `pg_proc` on PostgreSQL 15: it exists
 * in `pg_catalog`, no overload is set-returning or volatile, none reads a table, a file, a setting or
 * another session, and none can make its output much larger than its inputs (so `repeat`, `lpad`,
 * `rpad`, `replace`, `regexp_replace`, `format`, `array_fill` are absent on purpose).
 */

/** The tables an expression may reference, with their allow-listed columns. */
export const TABLE_COLUMNS: Readonly<Record<SegmentTable, readonly string[]>> = {
  subscribers: ['id', 'uuid', 'email', 'name', 'attribs', 'status', 'created_at', 'updated_at'],
  subscriber_lists: ['subscriber_id', 'list_id', 'meta', 'status', 'created_at', 'updated_at'],
};

/** A table an expression may reference; `subscriber_lists` only when filtering by list. */
export type SegmentTable = 'subscribers' | 'subscriber_lists';

/** Plain functions callable by name (always emitted as `pg_catalog."name"(…)`). */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // strings
  'lower', 'upper', 'initcap', 'length', 'char_length', 'character_length', 'octet_length',
  'btrim', 'ltrim', 'rtrim', 'substring', 'substr', 'split_part', 'strpos', 'starts_with',
  'left', 'right', 'concat', 'concat_ws', 'md5', 'reverse',
  // regular expressions (regexp_match returns one array, not a set; regexp_matches is a set: absent)
  'regexp_match', 'regexp_like',
  // numbers
  'abs', 'round', 'floor', 'ceil', 'ceiling', 'trunc', 'mod', 'sign',
  // date and time
  'now', 'statement_timestamp', 'transaction_timestamp', 'date_trunc', 'date_part', 'age',
  'to_char', 'to_date', 'to_timestamp', 'to_number', 'make_interval', 'make_date', 'make_timestamp',
  'make_timestamptz', 'date_bin', 'isfinite', 'justify_days', 'justify_hours', 'justify_interval',
  // JSON
  'jsonb_typeof', 'json_typeof', 'jsonb_array_length', 'json_array_length', 'jsonb_extract_path',
  'jsonb_extract_path_text', 'json_extract_path', 'json_extract_path_text', 'jsonb_build_object',
  'jsonb_build_array', 'jsonb_exists',
  // arrays
  // (string_to_array is absent: it builds arrays of any size from stored text, and array overlap
  // `&&` of two large arrays ran 66 s past a 500 ms timeout on PostgreSQL 15)
  'array_length', 'cardinality', 'array_position', 'array_to_string', 'array_lower', 'array_upper',
]);

/**
 * Functions the grammar itself produces, qualified `pg_catalog.` and marked COERCE_SQL_SYNTAX, for
 * SQL-standard syntax: EXTRACT(… FROM …), SUBSTRING(… FROM …), POSITION(… IN …), TRIM(…), OVERLAY,
 * AT TIME ZONE / AT LOCAL, OVERLAPS, NORMALIZE and IS NORMALIZED. A user-written `pg_catalog.f()` is
 * COERCE_EXPLICIT_CALL and stays refused.
 */
export const SQL_SYNTAX_FUNCTIONS: ReadonlySet<string> = new Set([
  'extract', 'substring', 'position', 'btrim', 'ltrim', 'rtrim', 'overlay', 'timezone', 'overlaps',
  'normalize', 'is_normalized',
]);

/**
 * Functions whose second argument is a pattern (regex) or a needle searched for in the first, with
 * whether it is a regular expression. The rest of their arguments must be constants too.
 */
export const PATTERN_FUNCTIONS: Readonly<Record<string, { readonly regex: boolean }>> = {
  regexp_match: { regex: true },
  regexp_like: { regex: true },
  substring: { regex: true },
  strpos: { regex: false },
  position: { regex: false },
  split_part: { regex: false },
};

/** Binary operators (after the parser's own rewrites, e.g. `!=` → `<>`). */
export const BINARY_OPERATORS: ReadonlySet<string> = new Set([
  '=', '<>', '<', '>', '<=', '>=',
  '+', '-', '*', '/', '%', '||',
  '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*', '^@',
  '->', '->>', '#>', '#>>', '?', '?|', '?&', '@>', '<@', '&&',
]);

/** Prefix operators. */
export const PREFIX_OPERATORS: ReadonlySet<string> = new Set(['-', '+']);

/** Operators usable with `op ANY (array)` / `op ALL (array)`. */
export const QUANTIFIED_OPERATORS: ReadonlySet<string> = new Set([
  '=', '<>', '<', '>', '<=', '>=', '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*',
]);

/** Operators that match a pattern against text (regex and LIKE families). */
export const PATTERN_OPERATORS: ReadonlySet<string> = new Set([
  '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*',
]);

/** Containment operators, whose cost is the product of their operands' sizes (patterns.ts). */
export const CONTAINMENT_OPERATORS: ReadonlySet<string> = new Set(['@>', '<@', '?|', '?&', '&&']);

/** Regex operators, a subset of {@link PATTERN_OPERATORS}. */
export const REGEX_OPERATORS: ReadonlySet<string> = new Set(['~', '~*', '!~', '!~*']);

/** Built-in types a value may be cast to, by their internal `pg_catalog` name. */
export const CATALOG_TYPES: ReadonlySet<string> = new Set([
  'text', 'varchar', 'bpchar', 'int2', 'int4', 'int8', 'numeric', 'float4', 'float8', 'bool',
  'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb', 'uuid',
]);

/**
 * listmonk's enum types of the columns expressions may read (listmonk-behaviour §19), castable by their
 * unqualified name and emitted unqualified, so they resolve in the application's schema. Mailroom
 * creates them as domains over text (migrations/0009_listmonk_enum_domains.sql; issue 14 finding 9b);
 * test/integration/segmentation/allow-list.test.ts checks that each exists on both stores.
 */
export const APP_TYPES: ReadonlySet<string> = new Set([
  'subscriber_status', 'subscription_status', 'list_type', 'list_optin', 'list_status', 'bounce_type',
]);

/**
 * SQL value functions (keywords without parentheses) that may appear, with the keyword emitted.
 * CURRENT_USER, SESSION_USER, CURRENT_ROLE, USER, CURRENT_CATALOG and CURRENT_SCHEMA are absent:
 * they disclose the database role and layout.
 */
export const SQL_VALUE_FUNCTIONS: Readonly<Record<string, string>> = {
  SVFOP_CURRENT_DATE: 'CURRENT_DATE',
  SVFOP_CURRENT_TIME: 'CURRENT_TIME',
  SVFOP_CURRENT_TIME_N: 'CURRENT_TIME',
  SVFOP_CURRENT_TIMESTAMP: 'CURRENT_TIMESTAMP',
  SVFOP_CURRENT_TIMESTAMP_N: 'CURRENT_TIMESTAMP',
  SVFOP_LOCALTIME: 'LOCALTIME',
  SVFOP_LOCALTIME_N: 'LOCALTIME',
  SVFOP_LOCALTIMESTAMP: 'LOCALTIMESTAMP',
  SVFOP_LOCALTIMESTAMP_N: 'LOCALTIMESTAMP',
};
