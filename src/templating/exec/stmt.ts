/**
 * Compiles statements (text, actions, if/with/range, template calls, break/continue) into closures.
 * In html mode it also follows the HTML context through the template at compile time and fixes
 * each action's escapers then, as Go's html/template does before the first execution.
 */
import type { ActionNode, BranchNode, LoopControlNode, Node, Pipe, TemplateCallNode, TextNode } from '../ast.js';
import { EvalFailure, syntaxError } from '../errors.js';
import { advanceText } from '../escape/advance.js';
import { chooseEscapers, type EscId, EQUIVALENT, ESCAPERS } from '../escape/choose.js';
import { type Ctx, D, DEAD, EscapeError, join, S } from '../escape/context.js';
import type { Escaper } from '../escape/escapers.js';
import { stringify } from '../escape/escapers.js';
import { formatValue } from '../go-format.js';
import { SafeHTML } from '../types.js';
import { isTrue } from '../values.js';
import { compilePipe, type Expr, type ExprEnv } from './expr.js';
import { runRange } from './range.js';
import { byteLen, type ExecState, locate, makeLoc } from './state.js';

/** A compiled statement; returns 0 normally, 1 after `break`, 2 after `continue`. */
export type Stmt = (st: ExecState, dot: unknown, vars: unknown[]) => number;

/** A compiled template body for one starting context. */
export interface Entry {
  body: Stmt;
  size: number;
  end: Ctx | null;
  compiling: boolean;
  recursed: boolean;
}

/** Resolves `{{template "name"}}` to a compiled entry for the caller's context (null if undefined). */
export interface Linker {
  link(name: string, ctx: Ctx | null): Entry | null;
}

type Out = [Stmt, Ctx | null];

const noop: Stmt = () => 0;

/** Text-mode printing: Go's fmt %v, except nil prints as '' (see README). */
function printText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof SafeHTML) return v.value;
  if (v === undefined || v === null) return '';
  return formatValue(v);
}

function compose(ids: EscId[]): Escaper {
  const fns = ids.map((id) => ESCAPERS[id]);
  if (fns.length === 0) return (v) => stringify(v)[0];
  if (fns.length === 1) return fns[0] as Escaper;
  const [f0, f1] = fns as [Escaper, Escaper];
  if (fns.length === 2) return (v) => f1(f0(v));
  return (v) => fns.reduce<unknown>((acc, f) => f(acc), v) as string;
}

/** Compiles one template body; a new instance per (template, starting context). */
export class BodyCompiler {
  private readonly loops: Ctx[][] = [];

  constructor(
    private readonly linker: Linker,
    readonly env: ExprEnv,
    private readonly html: boolean,
  ) {}

  list(nodes: Node[], ctx: Ctx | null): Out {
    const stmts: Stmt[] = [];
    let c = ctx;
    for (const n of nodes) {
      const [s, next] = this.node(n, c);
      if (s !== noop) stmts.push(s);
      c = next;
    }
    if (stmts.length === 0) return [noop, c];
    if (stmts.length === 1) return [stmts[0] as Stmt, c];
    return [(st, dot, vars) => {
      for (let i = 0; i < stmts.length; i++) {
        const r = (stmts[i] as Stmt)(st, dot, vars);
        if (r !== 0) return r;
      }
      return 0;
    }, c];
  }

  private node(n: Node, ctx: Ctx | null): Out {
    switch (n.kind) {
      case 'text': return this.text(n, ctx);
      case 'action': return this.action(n, ctx);
      case 'if': case 'with': return this.branch(n, ctx);
      case 'range': return this.range(n, ctx);
      case 'template': return this.call(n, ctx);
      case 'break': case 'continue': return this.loopControl(n, ctx);
    }
  }

  private fail(pos: number, msg: string): never {
    syntaxError(this.env.src, pos, msg);
  }

  /** Compiles a pipeline, turning compile-time evaluation errors into syntax errors. */
  private pipe(p: Pipe, assign: boolean): Expr {
    try {
      return compilePipe(p, this.env, assign);
    } catch (e) {
      if (e instanceof EvalFailure) this.fail(p.pos, e.message);
      throw e;
    }
  }

  private text(n: TextNode, ctx: Ctx | null): Out {
    let after = ctx;
    if (ctx) {
      try {
        after = advanceText(ctx, n.text);
      } catch (e) {
        if (e instanceof EscapeError) this.fail(n.pos + e.at, e.message);
        throw e;
      }
    }
    const text = n.text;
    const bytes = byteLen(text);
    const loc = makeLoc(this.env.src, this.env.tmpl, n.pos, n.pos + 20);
    return [(st) => {
      st.out += text;
      if ((st.bytes += bytes) > st.maxBytes) throw locate(new EvalFailure(`output exceeds ${st.maxBytes} bytes`, true), loc);
      return 0;
    }, after];
  }

  private escapersFor(n: ActionNode, ctx: Ctx): { esc: Escaper; after: Ctx } {
    const choice = chooseEscapers(ctx);
    const snippet = this.env.src.text.slice(n.pos, n.pipe.end).trim();
    if (typeof choice === 'string') this.fail(n.pos, `{{${snippet}}} ${choice}`);
    const cmds = n.pipe.cmds;
    let chain = choice.chain;
    cmds.forEach((cmd, i) => {
      const first = cmd.args[0];
      const esc = first?.kind === 'ident' ? this.env.funcs[first.name]?.escaper : undefined;
      if (!esc) return;
      const unquotedHtml = esc === 'html' && choice.after.delim === D.SpaceOrTagEnd && choice.after.s === S.Attr;
      if (i < cmds.length - 1 || unquotedHtml) this.fail(cmd.pos, `predefined escaper "${esc}" disallowed in template`);
      chain = chain.filter((id) => EQUIVALENT[id] !== esc);
    });
    return { esc: compose(chain), after: choice.after };
  }

  private action(n: ActionNode, ctx: Ctx | null): Out {
    const expr = this.pipe(n.pipe, true);
    if (n.pipe.decl.length > 0) return [(st, dot, vars) => (expr(st, dot, vars), 0), ctx];
    const loc = makeLoc(this.env.src, this.env.tmpl, n.pos, n.pipe.end);
    const { esc, after } = ctx ? this.escapersFor(n, ctx) : { esc: printText, after: null };
    return [(st, dot, vars) => {
      const v = expr(st, dot, vars);
      try {
        st.emit(esc(v));
      } catch (e) {
        throw locate(e, loc);
      }
      return 0;
    }, after];
  }

  private joinOrFail(a: Ctx | null, b: Ctx | null, name: string, pos: number, prefix = ''): Ctx | null {
    if (!a || !b) return null;
    const j = join(a, b, name);
    if (typeof j === 'string') this.fail(pos, prefix + j);
    return j;
  }

  private branch(n: BranchNode, ctx: Ctx | null): Out {
    const mark = this.env.scope.mark();
    const cond = this.pipe(n.pipe, true);
    const [body, c1] = this.list(n.list, ctx);
    const [elseBody, c2] = n.elseList ? this.list(n.elseList, ctx) : [null, ctx];
    this.env.scope.pop(mark);
    const after = this.joinOrFail(c1, c2, n.kind, n.pos);
    if (n.kind === 'if') {
      return [(st, dot, vars) => (isTrue(cond(st, dot, vars)) ? body(st, dot, vars) : elseBody ? elseBody(st, dot, vars) : 0), after];
    }
    return [(st, dot, vars) => {
      const v = cond(st, dot, vars);
      return isTrue(v) ? body(st, v, vars) : elseBody ? elseBody(st, dot, vars) : 0;
    }, after];
  }

  /** The range body's end context joined with every break/continue context inside it. */
  private bodyEnd(nodes: Node[], ctx: Ctx | null, pos: number): Out {
    this.loops.push([]);
    const [stmt, end] = this.list(nodes, ctx);
    const exits = this.loops.pop() as Ctx[];
    let c = end;
    for (const x of exits) c = this.joinOrFail(c, x, 'range', pos);
    return [stmt, c];
  }

  private range(n: BranchNode, ctx: Ctx | null): Out {
    const mark = this.env.scope.mark();
    const iter = this.pipe(n.pipe, false);
    const slots = n.pipe.decl.map((d) => (n.pipe.isAssign ? this.env.scope.lookup(d.name) : this.env.scope.declare(d.name)));
    const [body, c0] = this.bodyEnd(n.list, ctx, n.pos);
    let end = c0;
    if (c0) {
      const [, c1] = this.bodyEnd(n.list, c0, n.pos);
      end = this.joinOrFail(c0, c1, 'range', n.pos, 'on range loop re-entry: ');
    }
    const [elseBody, c2] = n.elseList ? this.list(n.elseList, ctx) : [null, ctx];
    this.env.scope.pop(mark);
    const after = this.joinOrFail(end, c2, 'range', n.pos);
    const loc = makeLoc(this.env.src, this.env.tmpl, n.pipe.pos, n.pipe.end);
    return [(st, dot, vars) => runRange(st, iter(st, dot, vars), slots, body, elseBody, dot, vars, loc), after];
  }

  private call(n: TemplateCallNode, ctx: Ctx | null): Out {
    const entry = this.linker.link(n.name, ctx);
    const arg = n.pipe ? this.pipe(n.pipe, true) : null;
    const loc = makeLoc(this.env.src, this.env.tmpl, n.pos, n.pipe ? n.pipe.end : n.pos + n.name.length + 2);
    if (!entry) {
      const msg = `no template "${n.name}" associated with template "${this.env.tmpl}"`;
      return [() => { throw locate(new EvalFailure(msg), loc); }, ctx];
    }
    return [(st, dot, vars) => {
      try {
        st.tick();
        if (++st.depth > st.maxDepth) throw new EvalFailure(`exceeded maximum template depth (${st.maxDepth})`, true);
      } catch (e) {
        throw locate(e, loc);
      }
      const v = arg ? arg(st, dot, vars) : undefined;
      const frame: unknown[] = new Array(entry.size);
      frame[0] = v;
      entry.body(st, v, frame);
      st.depth--;
      return 0;
    }, entry.end];
  }

  private loopControl(n: LoopControlNode, ctx: Ctx | null): Out {
    const code = n.kind === 'break' ? 1 : 2;
    if (ctx) (this.loops[this.loops.length - 1] as Ctx[]).push(ctx);
    return [() => code, ctx ? DEAD : null];
  }
}
