/**
 * Error classes of the template language and the source bookkeeping that gives them positions.
 */

/**
 * A parsed source: its name, the text actually parsed (after shorthand rewrites) and a mapping of
 * offsets in that text back to the text the user wrote, so errors point at the user's columns.
 */
export interface SourceInfo {
  name: string;
  /** Text the lexer saw. */
  text: string;
  /** Text the user wrote. */
  original: string;
  /** Maps an offset in `text` to an offset in `original`. */
  toOriginal(offset: number): number;
}

/** Builds a SourceInfo for text that was not rewritten. */
export function plainSource(name: string, text: string): SourceInfo {
  return { name, text, original: text, toOriginal: (o) => o };
}

/**
 * 1-based line and column of `offset` in the user's text. Columns count UTF-16 code units, which is
 * what editors show for the BMP (Go counts bytes; see README "Known differences").
 */
export function lineCol(src: SourceInfo, offset: number): { line: number; column: number } {
  const text = src.original;
  const at = Math.max(0, Math.min(src.toOriginal(offset), text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/**
 * A source that does not parse, an unknown function, or HTML the escaper cannot follow.
 * Message format follows Go's: `template: content:3:12: unexpected "}" in operand`.
 */
export class TemplateSyntaxError extends Error {
  override name = 'TemplateSyntaxError';
  constructor(
    readonly template: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`template: ${template}:${line}:${column}: ${detail}`);
  }
}

/**
 * A failure while executing: a bad call, an index out of range, a bound exceeded.
 * Message format follows Go's: `template: content:3:12: executing "content" at <index .A 5>: …`.
 */
export class TemplateExecError extends Error {
  override name = 'TemplateExecError';
  constructor(
    readonly template: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
    message?: string,
  ) {
    super(message ?? `template: ${template}:${line}:${column}: ${detail}`);
  }
}

/** Throws a TemplateSyntaxError located at `offset` of `src`. */
export function syntaxError(src: SourceInfo, offset: number, detail: string): never {
  const { line, column } = lineCol(src, offset);
  throw new TemplateSyntaxError(src.name, line, column, detail);
}

/**
 * An error raised inside a function or a value operation, without a position yet. The executor
 * catches it and rethrows a positioned TemplateExecError. `bound` marks limit violations, which
 * are reported without an "error calling" prefix.
 */
export class EvalFailure extends Error {
  constructor(
    message: string,
    readonly bound = false,
  ) {
    super(message);
  }
}
