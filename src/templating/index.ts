/**
 * Mailroom's template language: Go text/template syntax, html/template-style contextual escaping,
 * listmonk's functions and the Sprig subset listmonk templates use. See README.md in this folder.
 *
 * Usage: `compile([{name: 'base', source: tpl}, {name: 'content', source: body}], {mode: 'html'})`
 * once, then `execute(data, env)` per message.
 */
import type { Node, Operand, Pipe, TemplateTree } from './ast.js';
import { plainSource, type SourceInfo, TemplateExecError } from './errors.js';
import { withBudget } from './budget.js';
import { TEXT } from './escape/context.js';
import { ExecState } from './exec/state.js';
import { Program, type TreeRef } from './exec/program.js';
import type { Entry } from './exec/stmt.js';
import { buildFuncTable } from './funcs/index.js';
import { normalizeTrackedUrl } from './funcs/listmonk.js';
import { isEmptyTree, parseSource } from './parser.js';
import { applyShorthands } from './shorthands.js';
import {
  type CompileOptions, DEFAULT_LIMITS, type ExecLimits, type RenderEnv, type ResolvedLimits, type TemplateSource,
} from './types.js';

export type {
  CallContext, CompileOptions, ExecLimits, FuncMap, RenderEnv, TemplateFunc, TemplateMode, TemplateSource,
} from './types.js';
export { SafeHTML, DEFAULT_LIMITS } from './types.js';
export { TemplateSyntaxError, TemplateExecError } from './errors.js';
export { subscriberView, SubscriberView, firstNameOf, lastNameOf, type SubscriberRow } from './subscriber-view.js';
export {
  CampaignMessageData, CampaignView, campaignView, ListView, OptinData, TxView,
  type CampaignRecord, type ListRecord, type TxRecord,
} from './listmonk-model.js';
export { NullInt, NullString, NullTime } from './go-null.js';

/** A compiled set of templates; execute() is safe to call many times and concurrently. */
export interface CompiledTemplate {
  /** Renders the entry template with `data` as `.` and `$`. Throws TemplateExecError. */
  execute(data: unknown, env?: RenderEnv, limits?: ExecLimits): string;
  /** String literals passed to TrackLink anywhere in the sources (`&amp;` unescaped), in order, unique. */
  trackedUrls(): string[];
  /** How many times `{{ template "name" . }}` (with exactly `.` as argument) appears in the sources. */
  countTemplateCalls(name: string): number;
}

function resolveLimits(l: ExecLimits | undefined): ResolvedLimits {
  const pick = (v: number | undefined, d: number): number => (typeof v === 'number' && v > 0 ? Math.floor(v) : d);
  return {
    maxSteps: pick(l?.maxSteps, DEFAULT_LIMITS.maxSteps),
    maxOutputBytes: pick(l?.maxOutputBytes, DEFAULT_LIMITS.maxOutputBytes),
    maxDepth: pick(l?.maxDepth, DEFAULT_LIMITS.maxDepth),
  };
}

/** Visits every pipeline in a list of nodes, including parenthesised ones. */
function eachPipe(nodes: Node[], fn: (p: Pipe) => void): void {
  const visitPipe = (p: Pipe): void => {
    fn(p);
    for (const c of p.cmds) for (const a of c.args) visitOperand(a);
  };
  const visitOperand = (a: Operand): void => {
    if (a.kind === 'pipe') visitPipe(a.pipe);
    else if (a.kind === 'chain') visitOperand(a.node);
  };
  for (const n of nodes) {
    if (n.kind === 'action') visitPipe(n.pipe);
    else if (n.kind === 'if' || n.kind === 'with' || n.kind === 'range') {
      visitPipe(n.pipe);
      eachPipe(n.list, fn);
      if (n.elseList) eachPipe(n.elseList, fn);
    } else if (n.kind === 'template' && n.pipe) visitPipe(n.pipe);
  }
}

function collectTrackedUrls(trees: TemplateTree[]): string[] {
  const urls = new Set<string>();
  for (const t of trees) {
    eachPipe(t.root, (p) => p.cmds.forEach((c, i) => {
      const [head, arg] = c.args;
      if (head?.kind !== 'ident' || head.name !== 'TrackLink') return;
      const prev = p.cmds[i - 1]?.args;
      if (arg?.kind === 'string') urls.add(normalizeTrackedUrl(arg.value));
      else if (!arg && prev?.length === 1 && prev[0]?.kind === 'string') urls.add(normalizeTrackedUrl(prev[0].value));
    }));
  }
  return [...urls];
}

function countCalls(nodes: Node[], name: string): number {
  let n = 0;
  for (const node of nodes) {
    if (node.kind === 'template' && node.name === name) {
      const args = node.pipe?.cmds.length === 1 ? node.pipe.cmds[0]?.args : undefined;
      if (args?.length === 1 && args[0]?.kind === 'dot' && node.pipe?.decl.length === 0) n++;
    } else if (node.kind === 'if' || node.kind === 'with' || node.kind === 'range') {
      n += countCalls(node.list, name) + (node.elseList ? countCalls(node.elseList, name) : 0);
    }
  }
  return n;
}

/** Parses every source; later sources' trees replace earlier ones of the same name (Go's AddParseTree). */
function parseAll(sources: TemplateSource[], opts: CompileOptions, hasFunc: (n: string) => boolean): Map<string, TreeRef> {
  const trees = new Map<string, TreeRef>();
  sources.forEach((s, i) => {
    const src: SourceInfo = opts.shorthands === false ? plainSource(s.name, s.source) : applyShorthands(s.name, s.source);
    for (const tree of parseSource(src, i, hasFunc).trees) {
      const old = trees.get(tree.name);
      if (old && isEmptyTree(tree.root) && !isEmptyTree(old.tree.root)) continue;
      trees.set(tree.name, { tree, src });
    }
  });
  return trees;
}

/**
 * listmonk's `hasTplExpr`: whether `source` holds `{{` and, somewhere after it, `}}`. listmonk
 * compiles subjects, alt bodies and header values as templates only then, and sends them as
 * written otherwise (issue 15 item 10; listmonk models/campaigns.go).
 */
export function hasTemplateExpr(source: string): boolean {
  const i = source.indexOf('{{');
  return i !== -1 && source.includes('}}', i + 2);
}

/** A CompiledTemplate that prints `text` as written (a subject or header without `{{ … }}`). */
export function literalTemplate(text: string): CompiledTemplate {
  return { execute: () => text, trackedUrls: () => [], countTemplateCalls: () => 0 };
}

/**
 * Compiles a single text-mode part (subject, alt body, header value) the way listmonk does: as a
 * template when {@link hasTemplateExpr}, else as a literal. Throws TemplateSyntaxError.
 */
export function compileTextPart(name: string, source: string, opts: Omit<CompileOptions, 'mode'> = {}): CompiledTemplate {
  return hasTemplateExpr(source) ? compile([{ name, source }], { ...opts, mode: 'text' }) : literalTemplate(source);
}

/**
 * Parses and compiles named templates; the first source is the entry point. In html mode the
 * escaping of every action reachable from the entry is decided here, once.
 * Throws TemplateSyntaxError for bad syntax, unknown functions or variables, and HTML the escaper
 * cannot follow (Go html/template's errors), with the 1-based line/column in the user's source.
 */
export function compile(sources: TemplateSource[], opts: CompileOptions): CompiledTemplate {
  const first = sources[0];
  if (!first) throw new TypeError('compile: at least one template source is required');
  const funcs = buildFuncTable(opts.funcs);
  const trees = parseAll(sources, opts, (n) => n in funcs);
  const html = opts.mode === 'html';
  const entry = new Program(trees, funcs, html).link(first.name, html ? TEXT : null) as Entry;
  const allTrees = [...trees.values()].map((r) => r.tree);
  const tracked = collectTrackedUrls(allTrees);
  return {
    execute(data, env = {}, limits) {
      const st = new ExecState(data, env, resolveLimits(limits));
      const frame: unknown[] = new Array(entry.size);
      frame[0] = data;
      try {
        withBudget(st, () => entry.body(st, data, frame));
      } catch (e) {
        if (e instanceof TemplateExecError) throw e;
        const msg = e instanceof Error ? e.message : String(e);
        throw new TemplateExecError(first.name, 1, 1, msg, `template: ${first.name}: ${msg}`);
      }
      return st.out;
    },
    trackedUrls: () => [...tracked],
    countTemplateCalls: (name) => allTrees.reduce((n, t) => n + countCalls(t.root, name), 0),
  };
}

