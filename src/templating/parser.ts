/**
 * Parser for Go's text/template syntax: builds TemplateTrees from tokens, following the grammar and
 * error messages of Go's text/template/parse (control structures here; pipelines in parse-pipeline.ts).
 */
import type { BranchNode, Node, TemplateTree } from './ast.js';
import { syntaxError, type SourceInfo } from './errors.js';
import { unquoteString } from './go-literals.js';
import { lex, type Token } from './lexer.js';
import { PipelineParser } from './parse-pipeline.js';

/** Control structures nested deeper than this are rejected (keeps compile and run off deep JS stacks). */
export const MAX_NESTING = 200;

/** Result of parsing one source: its top-level tree plus the trees it defines. */
export interface ParsedSource {
  trees: TemplateTree[];
}

/**
 * Parses `src` (named `src.name`) into trees: the top level under its own name, then one tree per
 * `define`/`block`. `hasFunc` tells which identifiers are functions. Throws TemplateSyntaxError.
 */
export function parseSource(src: SourceInfo, sourceIndex: number, hasFunc: (name: string) => boolean): ParsedSource {
  return new Parser(src, sourceIndex, lex(src), hasFunc).parseTop();
}

type ListEnd = { kind: 'end' | 'else'; tok: Token; elseKw?: 'if' | 'with' };

class Parser extends PipelineParser {
  private readonly trees: TemplateTree[] = [];
  private rangeDepth = 0;
  private nesting = 0;

  constructor(src: SourceInfo, private readonly sourceIndex: number, toks: Token[], hasFunc: (n: string) => boolean) {
    super(src, toks, hasFunc);
  }

  parseTop(): ParsedSource {
    const root: Node[] = [];
    const top: TemplateTree = { name: this.src.name, root, source: this.sourceIndex };
    this.trees.push(top);
    while (this.peek().t !== 'eof') {
      if (this.peek().t === 'leftDelim') {
        const delimAt = this.i;
        this.next();
        const kw = this.nextNonSpace();
        if (kw.t === 'keyword' && kw.val === 'define') {
          this.parseDefinition();
          continue;
        }
        this.i = delimAt;
      }
      const n = this.textOrAction();
      if ('endKind' in n) this.fail(n.tok.pos, `unexpected {{${n.endKind}}}`);
      root.push(n);
    }
    this.addTree(top);
    return { trees: this.trees };
  }

  /** Go's rule: a later non-empty definition of the same name in one source is an error. */
  private addTree(tree: TemplateTree): void {
    const prev = this.trees.findIndex((t) => t !== tree && t.name === tree.name);
    if (prev === -1) {
      if (!this.trees.includes(tree)) this.trees.push(tree);
      return;
    }
    const old = this.trees[prev] as TemplateTree;
    if (isEmptyTree(old.root)) this.trees[prev] = tree;
    else if (!isEmptyTree(tree.root)) this.fail(this.last().pos, `template: multiple definition of template "${tree.name}"`);
  }

  private parseDefinition(): void {
    const ctx = 'define clause';
    const tok = this.nextNonSpace();
    if (tok.t !== 'string' && tok.t !== 'rawString') this.unexpected(tok, ctx);
    const name = this.templateName(tok);
    const close = this.nextNonSpace();
    if (close.t !== 'rightDelim') this.unexpected(close, ctx);
    const saved = this.enterTemplateScope();
    const [root, end] = this.itemList();
    if (end.kind !== 'end') this.fail(end.tok.pos, `unexpected {{else}} in ${ctx}`);
    this.vars = saved;
    this.addTree({ name, root, source: this.sourceIndex });
  }

  private enterTemplateScope(): string[] {
    const saved = this.vars;
    this.vars = ['$'];
    return saved;
  }

  private templateName(tok: Token): string {
    const name = unquoteString(tok.val);
    if (name === null) this.fail(tok.pos, 'invalid syntax');
    return name;
  }

  /** Parses nodes until `{{end}}` or `{{else}}`; EOF is an error. */
  private itemList(): [Node[], ListEnd] {
    const list: Node[] = [];
    while (this.peekNonSpace().t !== 'eof') {
      const n = this.textOrAction();
      if ('endKind' in n) return [list, { kind: n.endKind, tok: n.tok, elseKw: n.elseKw }];
      list.push(n);
    }
    this.fail(this.peek().pos, 'unexpected EOF');
  }

  private textOrAction(): Node | { endKind: 'end' | 'else'; tok: Token; elseKw?: 'if' | 'with' } {
    const tok = this.nextNonSpace();
    if (tok.t === 'text') return { kind: 'text', pos: tok.pos, text: tok.val };
    if (tok.t === 'leftDelim') return this.action();
    this.unexpected(tok, 'input');
  }

  private action(): Node | { endKind: 'end' | 'else'; tok: Token; elseKw?: 'if' | 'with' } {
    const tok = this.nextNonSpace();
    if (tok.t === 'keyword') {
      switch (tok.val) {
        case 'block': return this.blockControl(tok);
        case 'break':
        case 'continue': return this.loopControl(tok);
        case 'else': return this.elseControl(tok);
        case 'end': this.expectClose('end'); return { endKind: 'end', tok };
        case 'if':
        case 'with':
        case 'range': return this.branch(tok.val, tok.pos);
        case 'template': return this.templateControl(tok);
        case 'define': this.unexpected(tok, 'command');
      }
    }
    this.backup();
    return { kind: 'action', pos: this.peek().pos, pipe: this.pipeline('command', 'rightDelim') };
  }

  private expectClose(ctx: string): Token {
    const t = this.nextNonSpace();
    if (t.t !== 'rightDelim') this.unexpected(t, ctx);
    return t;
  }

  private elseControl(tok: Token): { endKind: 'else'; tok: Token; elseKw?: 'if' | 'with' } {
    const peek = this.peekNonSpace();
    if (peek.t === 'keyword' && (peek.val === 'if' || peek.val === 'with')) {
      return { endKind: 'else', tok, elseKw: peek.val };
    }
    this.expectClose('else');
    return { endKind: 'else', tok };
  }

  private loopControl(tok: Token): Node {
    const kind = tok.val as 'break' | 'continue';
    this.expectClose(`{{${kind}}}`);
    if (this.rangeDepth === 0) this.fail(tok.pos, `{{${kind}}} outside {{range}}`);
    return { kind, pos: tok.pos };
  }

  /** if / with / range, including `else if` and `else with` chains (one shared {{end}}). */
  private branch(kind: 'if' | 'with' | 'range', pos: number): BranchNode {
    if (++this.nesting > MAX_NESTING) this.fail(pos, 'control structures nested too deeply');
    const mark = this.vars.length;
    const pipe = this.pipeline(kind, 'rightDelim');
    if (kind === 'range') this.rangeDepth++;
    let [list, end] = this.itemList();
    if (kind === 'range') this.rangeDepth--;
    let elseList: Node[] | null = null;
    if (end.kind === 'else') {
      if (end.elseKw !== undefined && end.elseKw === kind) {
        const kw = this.nextNonSpace();
        elseList = [this.branch(end.elseKw, kw.pos)];
      } else {
        if (end.elseKw) this.expectClose('else');
        [elseList, end] = this.itemList();
        if (end.kind !== 'end') this.fail(end.tok.pos, `expected end; found {{else}}`);
      }
    }
    this.vars.length = mark;
    this.nesting--;
    return { kind, pos, pipe, list, elseList };
  }

  private templateControl(tok: Token): Node {
    const ctx = 'template clause';
    const nameTok = this.nextNonSpace();
    if (nameTok.t !== 'string' && nameTok.t !== 'rawString') this.unexpected(nameTok, ctx);
    const name = this.templateName(nameTok);
    if (this.nextNonSpace().t === 'rightDelim') return { kind: 'template', pos: tok.pos, name, pipe: null };
    this.backup();
    return { kind: 'template', pos: tok.pos, name, pipe: this.pipeline(ctx, 'rightDelim') };
  }

  /** `{{block "name" pipeline}} body {{end}}`: defines `name` and calls it in place. */
  private blockControl(tok: Token): Node {
    const ctx = 'block clause';
    const nameTok = this.nextNonSpace();
    if (nameTok.t !== 'string' && nameTok.t !== 'rawString') this.unexpected(nameTok, ctx);
    const name = this.templateName(nameTok);
    const pipe = this.pipeline(ctx, 'rightDelim');
    const saved = this.enterTemplateScope();
    const outerRange = this.rangeDepth;
    this.rangeDepth = 0;
    const [root, end] = this.itemList();
    this.rangeDepth = outerRange;
    this.vars = saved;
    if (end.kind !== 'end') this.fail(end.tok.pos, `unexpected {{else}} in ${ctx}`);
    this.addTree({ name, root, source: this.sourceIndex });
    return { kind: 'template', pos: tok.pos, name, pipe };
  }
}

/** Go's IsEmptyTree: only whitespace text. Such a define never replaces a non-empty template. */
export function isEmptyTree(nodes: Node[]): boolean {
  return nodes.every((n) => n.kind === 'text' && n.text.trim() === '');
}

