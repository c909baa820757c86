/**
 * Text-level checks on a `query` expression, before and beside parsing: listmonk's normalisation
 * (trim, drop one trailing `;`; listmonk-behaviour §14.1 `formatSQLExp`), size, NUL, and a token scan
 * by PostgreSQL's own lexer (libpg-query `scan`) that refuses statement separators, comments,
 * `$n` parameters, U&'…' / E'…' / dollar-quoted strings and parentheses that close more than the
 * expression opened (the `true) OR (true` trick that escapes a textual wrapper).
 */
import { scan, type ScanToken } from 'libpg-query';
import { refuse } from './errors.js';
import type { GuardLimits } from './limits.js';

/** Text placed before the expression when parsing it (and the shape the parse must have). */
export const WRAPPER_PREFIX = 'SELECT 1 FROM subscribers LEFT JOIN subscriber_lists ON false WHERE (\n';
/** Text placed after the expression; the leading newline ends any `--` comment before the `)`. */
export const WRAPPER_SUFFIX = '\n)';

/**
 * listmonk's normalisation: trim surrounding whitespace, then remove one trailing `;`. The result
 * is what responses echo back as `query`. An empty result means "no expression".
 */
export function normalizeQueryText(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.endsWith(';') ? trimmed.slice(0, -1) : trimmed;
}

/** Refuses text that is too long or contains NUL (which would truncate the text in C code). */
export function checkCharacters(expr: string, limits: GuardLimits): void {
  if (expr.length > limits.maxLength) {
    refuse(`the expression is too long (${expr.length} characters; at most ${limits.maxLength})`);
  }
  if (expr.includes('\u0000')) refuse('the expression contains a NUL character');
}

/**
 * Scans `WRAPPER_PREFIX + expr + WRAPPER_SUFFIX` with PostgreSQL's lexer and refuses forbidden
 * tokens inside the expression. Returns false when the lexer itself fails (e.g. an unterminated
 * string), leaving the parser to report the syntax error. Throws QueryRefusedError.
 */
export async function checkTokens(expr: string): Promise<boolean> {
  const text = WRAPPER_PREFIX + expr + WRAPPER_SUFFIX;
  let tokens: ScanToken[];
  try {
    tokens = (await scan(text)).tokens;
  } catch {
    return false;
  }
  const bytes = Buffer.from(text, 'utf8');
  const start = Buffer.byteLength(WRAPPER_PREFIX, 'utf8');
  const end = start + Buffer.byteLength(expr, 'utf8');
  const position = (t: ScanToken): number => bytes.subarray(start, t.start).toString('utf8').length + 1;
  let depth = 0;
  for (const t of tokens) {
    if (t.end <= start || t.start >= end) continue;
    if (t.start < start || t.end > end) refuse('the expression does not end cleanly');
    checkToken(t, position);
    if (t.tokenName === 'ASCII_40') depth += 1;
    if (t.tokenName === 'ASCII_41') depth -= 1;
    if (depth < 0) refuse(`unbalanced parentheses: ")" at position ${position(t)} closes more than was opened`);
  }
  if (depth > 0) refuse('unbalanced parentheses: a "(" is never closed');
  return true;
}

const TOKEN_PROBLEMS: Readonly<Record<string, (t: ScanToken) => string>> = {
  ASCII_59: () => 'only one expression is allowed (found a statement separator ";")',
  SQL_COMMENT: () => 'comments are not allowed',
  C_COMMENT: () => 'comments are not allowed',
  PARAM: (t) => `parameters such as ${t.text} are not allowed`,
};

function checkToken(t: ScanToken, position: (t: ScanToken) => number): void {
  const at = ` (position ${position(t)})`;
  const problem = TOKEN_PROBLEMS[t.tokenName];
  if (problem !== undefined) refuse(problem(t) + at);
  if (/^u&/i.test(t.text)) refuse(`Unicode escapes (U&'…', U&"…") are not allowed${at}`);
  if (t.tokenName === 'SCONST' && t.text.startsWith('$')) refuse(`dollar-quoted strings are not allowed${at}`);
  if (t.tokenName === 'SCONST' && /^e'/i.test(t.text)) {
    refuse(`escape strings (E'…') are not allowed; use a standard '…' string${at}`);
  }
}
