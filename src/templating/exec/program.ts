/**
 * A set of parsed templates compiled on demand per (template name, starting HTML context), so a
 * template called from element text and from an attribute gets its own escaping, as Go derives
 * per-context copies. Recursive templates are assumed to end in the context they start in.
 */
import type { TemplateTree } from '../ast.js';
import { syntaxError, type SourceInfo } from '../errors.js';
import type { Ctx } from '../escape/context.js';
import { ctxEq, ctxKey, describe } from '../escape/context.js';
import type { FuncTable } from '../funcs/registry.js';
import { Scope } from './scope.js';
import { BodyCompiler, type Entry, type Linker } from './stmt.js';

/** A tree together with the source it was parsed from. */
export interface TreeRef {
  tree: TemplateTree;
  src: SourceInfo;
}

export class Program implements Linker {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly trees: Map<string, TreeRef>,
    private readonly funcs: FuncTable,
    private readonly html: boolean,
  ) {}

  /** Compiled entry for `name` starting in `ctx`; null when no such template exists. */
  link(name: string, ctx: Ctx | null): Entry | null {
    const ref = this.trees.get(name);
    if (!ref) return null;
    const key = `${name}\u0000${ctx ? ctxKey(ctx) : ''}`;
    const cached = this.cache.get(key);
    if (cached) {
      if (cached.compiling) cached.recursed = true;
      return cached;
    }
    const entry: Entry = { body: () => 0, size: 1, end: ctx, compiling: true, recursed: false };
    this.cache.set(key, entry);
    const scope = new Scope();
    const compiler = new BodyCompiler(this, { src: ref.src, tmpl: name, funcs: this.funcs, scope }, this.html);
    const [body, end] = compiler.list(ref.tree.root, ctx);
    entry.body = body;
    entry.size = scope.size;
    entry.compiling = false;
    if (ctx && end && entry.recursed && !ctxEq(ctx, end)) {
      syntaxError(ref.src, 0, `cannot compute output context for template ${name}: ends in ${describe(end)}`);
    }
    entry.end = end;
    return entry;
  }
}
