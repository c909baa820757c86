/**
 * Per-execution state shared by compiled closures: output buffer, counters for the limits, and
 * the call context handed to functions. Also how errors get their template positions.
 */
import { EvalFailure, lineCol, type SourceInfo, TemplateExecError } from '../errors.js';
import type { CallContext, RenderEnv, ResolvedLimits } from '../types.js';

/** Where a compiled node came from, resolved to line/column only when an error is thrown. */
export interface Loc {
  src: SourceInfo;
  pos: number;
  /** The template being executed (a `define` name, or the source name). */
  tmpl: string;
  /** Source text of the node, shown as `at <…>` like Go. */
  snippet: string;
}

/** Builds a Loc; the snippet is the source between `pos` and `end`, trimmed and shortened as Go does. */
export function makeLoc(src: SourceInfo, tmpl: string, pos: number, end: number): Loc {
  let snippet = src.text.slice(pos, Math.max(pos, end)).trim();
  if (snippet.length > 20) snippet = `${snippet.slice(0, 20)}...`;
  return { src, pos, tmpl, snippet };
}

/** A positioned TemplateExecError for `loc`. */
export function execError(loc: Loc, detail: string): TemplateExecError {
  const { line, column } = lineCol(loc.src, loc.pos);
  const where = `${loc.src.name}:${line}:${column}`;
  const message = `template: ${where}: executing "${loc.tmpl}" at <${loc.snippet}>: ${detail}`;
  return new TemplateExecError(loc.src.name, line, column, detail, message);
}

/**
 * Converts anything thrown inside a node into a positioned TemplateExecError. Errors that already
 * carry a position pass through, so the innermost node names the failure.
 */
export function locate(e: unknown, loc: Loc): TemplateExecError {
  if (e instanceof TemplateExecError) return e;
  if (e instanceof EvalFailure) return execError(loc, e.message);
  if (e instanceof RangeError) return execError(loc, `resource limit: ${e.message}`);
  return execError(loc, e instanceof Error ? e.message : String(e));
}

/** UTF-8 length of a string; a loop for short strings avoids the native call. */
export function byteLen(s: string): number {
  const n = s.length;
  if (n > 64) return Buffer.byteLength(s, 'utf8');
  let b = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) b += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return b;
}

/** Mutable state of one execute() call; it is also the CallContext functions receive. */
export class ExecState implements CallContext {
  out = '';
  bytes = 0;
  steps = 0;
  depth = 0;
  readonly maxSteps: number;
  readonly maxBytes: number;
  readonly maxDepth: number;

  constructor(
    readonly root: unknown,
    readonly env: RenderEnv,
    readonly limits: ResolvedLimits,
  ) {
    this.maxSteps = limits.maxSteps;
    this.maxBytes = limits.maxOutputBytes;
    this.maxDepth = limits.maxDepth;
  }

  /** Counts one evaluation; throws EvalFailure(bound) past maxSteps. */
  tick(): void {
    if (++this.steps > this.maxSteps) throw new EvalFailure(`exceeded maximum of ${this.maxSteps} steps`, true);
  }

  /** Counts `units` of work done inside a function (see CallContext.charge). */
  charge(units: number): void {
    this.steps += units;
    if (this.steps > this.maxSteps) throw new EvalFailure(`exceeded maximum of ${this.maxSteps} steps`, true);
  }

  /** Appends output; throws EvalFailure(bound) past maxOutputBytes. */
  emit(s: string): void {
    this.out += s;
    this.bytes += byteLen(s);
    if (this.bytes > this.maxBytes) throw new EvalFailure(`output exceeds ${this.maxBytes} bytes`, true);
  }
}
