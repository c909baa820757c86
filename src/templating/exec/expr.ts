/**
 * Compiles pipelines, commands and operands into closures (Go text/template's evalPipeline /
 * evalCommand / evalArg semantics). Positions are captured now and resolved only on error.
 */
import type { Command, Operand, Pipe } from '../ast.js';
import { EvalFailure, type SourceInfo, TemplateExecError } from '../errors.js';
import { arityError, type FuncDef, type FuncTable } from '../funcs/registry.js';
import { getField, isTrue } from '../values.js';
import { type ExecState, locate, type Loc, makeLoc } from './state.js';
import type { Scope } from './scope.js';

/** An evaluated expression. `vars` is the current template frame. */
export type Expr = (st: ExecState, dot: unknown, vars: unknown[]) => unknown;
/** A pipeline stage; `final` is the previous stage's value (absent for the first stage). */
type Stage = (st: ExecState, dot: unknown, vars: unknown[], final: unknown) => unknown;

/** What expression compilation needs to know about its surroundings. */
export interface ExprEnv {
  src: SourceInfo;
  tmpl: string;
  funcs: FuncTable;
  scope: Scope;
}

const NO_FINAL = Symbol('no final');

function walk(recv: unknown, names: string[], args: unknown[] | null): unknown {
  let v = recv;
  const last = names.length - 1;
  for (let i = 0; i < last; i++) v = getField(v, names[i] as string, null);
  return getField(v, names[last] as string, args);
}

/** A field chain used as an argument (no args). `invoke` false leaves a final function uncalled. */
function fieldsOf(base: Expr, names: string[], invoke = true): Expr {
  if (names.length === 0) return base;
  const last = names[names.length - 1] as string;
  if (names.length === 1) return (st, dot, vars) => getField(base(st, dot, vars), last, null, invoke);
  const init = names.slice(0, -1);
  return (st, dot, vars) => getField(walk(base(st, dot, vars), init, null), last, null, invoke);
}

const dotExpr: Expr = (_st, dot) => dot;

/** Work units of a value passed to or returned by a function: list length, or characters / 64. */
function weight(v: unknown): number {
  if (typeof v === 'string') return v.length >>> 6;
  return Array.isArray(v) ? v.length : 0;
}

/**
 * Calls a function definition with evaluated args; errors become "error calling name: …". The
 * call is charged for the size of its arguments and result, so loops over large values stay
 * within maxSteps.
 */
export function callFunc(name: string, d: FuncDef, st: ExecState, args: unknown[]): unknown {
  let r: unknown;
  let w = 0;
  for (let i = 0; i < args.length; i++) w += weight(args[i]);
  if (w > 0) st.charge(w);
  try {
    r = d.fn(st, ...args);
  } catch (e) {
    if (e instanceof EvalFailure && e.bound) throw e;
    if (e instanceof TemplateExecError) throw e;
    throw new EvalFailure(`error calling ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof r === 'string' && r.length > st.maxBytes) {
    throw new EvalFailure(`${name}: result exceeds the ${st.maxBytes}-byte output limit`, true);
  }
  w = weight(r);
  if (w > 0) st.charge(w);
  return r;
}

function varSlot(env: ExprEnv, name: string): number {
  const slot = env.scope.lookup(name);
  if (slot < 0) throw new EvalFailure(`undefined variable "${name}"`);
  return slot;
}

/**
 * An operand in argument position (Go's evalArg). `invoke` false keeps a function-valued field
 * as a value (the first argument of `call`).
 */
export function compileArg(op: Operand, env: ExprEnv, invoke = true): Expr {
  switch (op.kind) {
    case 'dot': return dotExpr;
    case 'nil': return () => null;
    case 'bool': case 'number': case 'string': {
      const v = op.value;
      return () => v;
    }
    case 'field': return fieldsOf(dotExpr, op.names, invoke);
    case 'variable': {
      const slot = varSlot(env, op.name);
      return fieldsOf((_s, _d, vars) => vars[slot], op.names, invoke);
    }
    case 'chain': return fieldsOf(compileArg(op.node, env), op.names, invoke);
    case 'pipe': return compilePipe(op.pipe, env, true);
    case 'ident': {
      const stage = compileFunction(op.name, [], env, false);
      return (st, dot, vars) => stage(st, dot, vars, NO_FINAL);
    }
  }
}

function evalArgs(args: Expr[], st: ExecState, dot: unknown, vars: unknown[], final: unknown): unknown[] {
  const out: unknown[] = new Array(args.length + (final === NO_FINAL ? 0 : 1));
  for (let i = 0; i < args.length; i++) out[i] = (args[i] as Expr)(st, dot, vars);
  if (final !== NO_FINAL) out[args.length] = final;
  return out;
}

/** `and`/`or`: arguments evaluated lazily, returning the deciding value (Go 1.18+). */
function logical(isAnd: boolean, args: Expr[]): Stage {
  return (st, dot, vars, final) => {
    const n = args.length + (final === NO_FINAL ? 0 : 1);
    let v: unknown;
    for (let i = 0; i < n; i++) {
      v = i < args.length ? (args[i] as Expr)(st, dot, vars) : final;
      if (isTrue(v) !== isAnd) return v;
    }
    return v;
  };
}

function compileFunction(name: string, argOps: Operand[], env: ExprEnv, hasFinal: boolean): Stage {
  const d = env.funcs[name];
  if (!d) throw new EvalFailure(`function "${name}" not defined`);
  const args = argOps.map((a, i) => compileArg(a, env, !(i === 0 && name === 'call')));
  const bad = arityError(name, d, args.length + (hasFinal ? 1 : 0));
  if (bad) return () => { throw new EvalFailure(bad); };
  if (d.logical) return logical(name === 'and', args);
  return (st, dot, vars, final) => callFunc(name, d, st, evalArgs(args, st, dot, vars, final));
}

function notAFunction(op: Operand, nArgs: number, hasFinal: boolean, value: Expr): Stage {
  if (op.kind === 'nil') return () => { throw new EvalFailure('nil is not a command'); };
  if (nArgs > 0 || hasFinal) return () => { throw new EvalFailure(`can't give argument to non-function ${describe(op)}`); };
  return (st, dot, vars) => value(st, dot, vars);
}

function describe(op: Operand): string {
  switch (op.kind) {
    case 'string': case 'number': return op.text;
    case 'bool': return String(op.value);
    case 'dot': return '.';
    default: return op.kind;
  }
}

/** A field chain as a command: the last field receives the arguments (and the piped value). */
function fieldCommand(base: Expr, names: string[], argOps: Operand[], env: ExprEnv, hasFinal: boolean): Stage {
  const args = argOps.map((a) => compileArg(a, env));
  if (names.length === 0) return notAFunction({ kind: 'dot', pos: 0 }, args.length, hasFinal, base);
  if (args.length === 0 && !hasFinal) {
    const e = fieldsOf(base, names);
    return (st, dot, vars) => e(st, dot, vars);
  }
  return (st, dot, vars, final) => walk(base(st, dot, vars), names, evalArgs(args, st, dot, vars, final));
}

function compileStage(cmd: Command, env: ExprEnv, hasFinal: boolean): Stage {
  const [first, ...rest] = cmd.args as [Operand, ...Operand[]];
  switch (first.kind) {
    case 'ident': return compileFunction(first.name, rest, env, hasFinal);
    case 'field': return fieldCommand(dotExpr, first.names, rest, env, hasFinal);
    case 'variable': {
      const slot = varSlot(env, first.name);
      return fieldCommand((_s, _d, vars) => vars[slot], first.names, rest, env, hasFinal);
    }
    case 'chain': return fieldCommand(compileArg(first.node, env), first.names, rest, env, hasFinal);
    default: return notAFunction(first, rest.length, hasFinal, compileArg(first, env));
  }
}

/** Wraps a stage so failures carry its position and every evaluation counts as a step. */
function located(stage: Stage, loc: Loc): Stage {
  return (st, dot, vars, final) => {
    try {
      st.tick();
      return stage(st, dot, vars, final);
    } catch (e) {
      throw locate(e, loc);
    }
  };
}

/**
 * Compiles a pipeline. With `assign`, declared variables receive the result (`$x := …`); range
 * passes false and assigns per iteration itself. Compile-time problems (unknown variable) throw
 * EvalFailure for the caller to position.
 */
export function compilePipe(pipe: Pipe, env: ExprEnv, assign: boolean): Expr {
  const stages = pipe.cmds.map((cmd, i) => located(compileStage(cmd, env, i > 0), makeLoc(env.src, env.tmpl, cmd.pos, cmd.end)));
  const slots = assign ? pipe.decl.map((d) => (pipe.isAssign ? varSlot(env, d.name) : env.scope.declare(d.name))) : [];
  const first = stages[0] as Stage;
  let run: Expr;
  if (stages.length === 1) run = (st, dot, vars) => first(st, dot, vars, NO_FINAL);
  else {
    run = (st, dot, vars) => {
      let v = first(st, dot, vars, NO_FINAL);
      for (let i = 1; i < stages.length; i++) v = (stages[i] as Stage)(st, dot, vars, v);
      return v;
    };
  }
  if (slots.length === 0) return run;
  return (st, dot, vars) => {
    const v = run(st, dot, vars);
    for (const s of slots) vars[s] = v;
    return v;
  };
}
