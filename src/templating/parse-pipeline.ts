/**
 * Token navigation plus the pipeline grammar of Go's text/template/parse: declarations, commands,
 * operands, terms and field chains. Control structures are in parser.ts.
 */
import type { Command, Operand, Pipe } from './ast.js';
import { syntaxError, type SourceInfo } from './errors.js';
import { integerOverflows, parseNumber, unquoteChar, unquoteString } from './go-literals.js';
import type { Token, TokType } from './lexer.js';

const MAX_PAREN_DEPTH = 200;

/** Go's item.String(): how a token is quoted in "unexpected …" messages. */
export function describeToken(t: Token): string {
  if (t.t === 'eof') return 'EOF';
  if (t.t === 'keyword') return `<${t.val}>`;
  if (t.val.length > 10) return `${JSON.stringify(t.val.slice(0, 10))}...`;
  return JSON.stringify(t.val);
}

const TERM_START: ReadonlySet<TokType> = new Set<TokType>([
  'bool', 'charConst', 'dot', 'field', 'ident', 'number', 'nil', 'rawString', 'string', 'variable', 'leftParen',
]);

/** Base parser: tokens, variables in scope, and the pipeline grammar. */
export class PipelineParser {
  protected i = 0;
  /** Variable names in scope, innermost last; `$` is always first. */
  protected vars: string[] = ['$'];
  private parenDepth = 0;

  constructor(
    protected readonly src: SourceInfo,
    private readonly toks: Token[],
    private readonly hasFunc: (name: string) => boolean,
  ) {}

  protected peek(): Token {
    return this.toks[this.i] as Token;
  }

  protected next(): Token {
    const t = this.toks[this.i] as Token;
    if (t.t !== 'eof') this.i++;
    return t;
  }

  protected last(): Token {
    return this.toks[Math.max(0, this.i - 1)] as Token;
  }

  protected backup(n = 1): void {
    this.i -= n;
  }

  protected nextNonSpace(): Token {
    let t = this.next();
    while (t.t === 'space') t = this.next();
    return t;
  }

  protected peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }

  protected fail(pos: number, msg: string): never {
    syntaxError(this.src, pos, msg);
  }

  protected unexpected(t: Token, context: string): never {
    this.fail(t.pos, `unexpected ${describeToken(t)} in ${context}`);
  }

  /** Pipeline: declarations? command ('|' command)* up to `end` (which is left unconsumed for ')'). */
  protected pipeline(context: string, end: 'rightDelim' | 'rightParen'): Pipe {
    const startTok = this.peekNonSpace();
    const pipe: Pipe = { pos: startTok.pos, end: startTok.pos, isAssign: false, decl: [], cmds: [] };
    this.declarations(pipe, context);
    for (;;) {
      const t = this.nextNonSpace();
      if (t.t === 'rightDelim' || t.t === 'rightParen') {
        if (t.t !== end) this.unexpected(t, context);
        this.checkPipeline(pipe, context, t);
        if (t.t === 'rightParen') this.backup();
        pipe.end = t.pos;
        return pipe;
      }
      if (!TERM_START.has(t.t)) this.unexpected(t, context);
      this.backup();
      pipe.cmds.push(this.command());
    }
  }

  /** `$x :=`, `$x =`, and in range `$i, $v :=`; anything else is left for the commands. */
  private declarations(pipe: Pipe, context: string): void {
    for (;;) {
      const v = this.peekNonSpace();
      if (v.t !== 'variable') return;
      const at = this.i;
      this.nextNonSpace();
      const n = this.peekNonSpace();
      if (n.t === 'assign' || n.t === 'declare') {
        pipe.isAssign = n.t === 'assign';
        this.nextNonSpace();
        pipe.decl.push({ name: v.val, pos: v.pos });
        this.finishDeclarations(pipe);
        return;
      }
      if (n.t === 'char' && n.val === ',') {
        this.nextNonSpace();
        pipe.decl.push({ name: v.val, pos: v.pos });
        if (context === 'range' && pipe.decl.length < 2) {
          const k = this.peekNonSpace().t;
          if (k === 'variable' || k === 'rightDelim' || k === 'rightParen') continue;
          this.fail(n.pos, 'range can only initialize variables');
        }
        this.fail(n.pos, `too many declarations in ${context}`);
      }
      this.i = at;
      return;
    }
  }

  /** `:=` brings the variables into scope; `=` requires them to exist already. */
  private finishDeclarations(pipe: Pipe): void {
    for (const d of pipe.decl) {
      if (!pipe.isAssign) this.vars.push(d.name);
      else if (!this.vars.includes(d.name)) this.fail(d.pos, `undefined variable "${d.name}"`);
    }
  }

  private checkPipeline(pipe: Pipe, context: string, at: Token): void {
    if (pipe.cmds.length === 0) this.fail(at.pos, `missing value for ${context}`);
    pipe.cmds.forEach((c, i) => {
      const k = (c.args[0] as Operand).kind;
      if (i > 0 && (k === 'bool' || k === 'dot' || k === 'nil' || k === 'number' || k === 'string')) {
        this.fail(c.pos, `non executable command in pipeline stage ${i + 1}`);
      }
    });
  }

  /** command: operand (space operand)*; consumes a trailing '|'. */
  private command(): Command {
    const cmd: Command = { pos: this.peekNonSpace().pos, end: 0, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.t === 'space') continue;
      if (t.t === 'rightDelim' || t.t === 'rightParen') this.backup();
      else if (t.t === 'pipe') {
        const after = this.peekNonSpace();
        if (!TERM_START.has(after.t)) this.fail(after.pos, `missing command after "|"`);
      } else this.fail(t.pos, `unexpected ${describeToken(t)} in operand`);
      cmd.end = t.pos;
      break;
    }
    if (cmd.args.length === 0) this.fail(cmd.pos, 'empty command');
    return cmd;
  }

  /** operand: term .Field* */
  private operand(): Operand | null {
    const node = this.term();
    if (!node || this.peek().t !== 'field') return node;
    const names: string[] = [];
    while (this.peek().t === 'field') names.push(this.next().val.slice(1));
    switch (node.kind) {
      case 'field': return { ...node, names: [...node.names, ...names] };
      case 'variable': return { ...node, names: [...node.names, ...names] };
      case 'bool': case 'string': case 'number': case 'nil': case 'dot':
        this.fail(node.pos, `unexpected . after term ${JSON.stringify(termText(node))}`);
      default: return { kind: 'chain', pos: node.pos, node, names };
    }
  }

  /** term: literal | function | . | .Field | $var | '(' pipeline ')' */
  private term(): Operand | null {
    const t = this.nextNonSpace();
    switch (t.t) {
      case 'ident':
        if (!this.hasFunc(t.val)) this.fail(t.pos, `function "${t.val}" not defined`);
        return { kind: 'ident', pos: t.pos, name: t.val };
      case 'dot': return { kind: 'dot', pos: t.pos };
      case 'nil': return { kind: 'nil', pos: t.pos };
      case 'variable': return this.useVar(t);
      case 'field': return { kind: 'field', pos: t.pos, names: [t.val.slice(1)] };
      case 'bool': return { kind: 'bool', pos: t.pos, value: t.val === 'true' };
      case 'number': case 'charConst': return this.number(t);
      case 'leftParen': return this.parenthesized(t);
      case 'string': case 'rawString': {
        const value = unquoteString(t.val);
        if (value === null) this.fail(t.pos, 'invalid syntax');
        return { kind: 'string', pos: t.pos, value, text: t.val };
      }
    }
    this.backup();
    return null;
  }

  private parenthesized(t: Token): Operand {
    if (++this.parenDepth > MAX_PAREN_DEPTH) this.fail(t.pos, 'parenthesized pipelines nested too deeply');
    const pipe = this.pipeline('parenthesized pipeline', 'rightParen');
    const close = this.next();
    if (close.t !== 'rightParen') this.fail(close.pos, `unclosed right paren: unexpected ${describeToken(close)}`);
    this.parenDepth--;
    return { kind: 'pipe', pos: t.pos, pipe };
  }

  private number(t: Token): Operand {
    if (t.t === 'charConst') {
      const cp = unquoteChar(t.val);
      if (cp === null) this.fail(t.pos, `malformed character constant: ${t.val}`);
      return { kind: 'number', pos: t.pos, value: cp, text: t.val };
    }
    if (t.val.endsWith('i') && parseNumber(t.val.slice(0, -1)) !== null) {
      this.fail(t.pos, `complex numbers are not supported: ${JSON.stringify(t.val)}`);
    }
    if (integerOverflows(t.val)) this.fail(t.pos, `integer overflow: ${JSON.stringify(t.val)}`);
    const value = parseNumber(t.val);
    if (value === null) this.fail(t.pos, `illegal number syntax: ${JSON.stringify(t.val)}`);
    return { kind: 'number', pos: t.pos, value, text: t.val };
  }

  private useVar(t: Token): Operand {
    if (!this.vars.includes(t.val)) this.fail(t.pos, `undefined variable "${t.val}"`);
    return { kind: 'variable', pos: t.pos, name: t.val, names: [] };
  }
}

function termText(node: Operand): string {
  switch (node.kind) {
    case 'bool': return String(node.value);
    case 'string': return node.text;
    case 'number': return node.text;
    case 'nil': return 'nil';
    default: return '.';
  }
}
