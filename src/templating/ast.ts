/**
 * Syntax tree of a parsed template (the node kinds of Go's text/template/parse). Every node carries
 * `pos`, an offset into the lexed text of its source, used only for error positions.
 */

/** A statement in a template body. */
export type Node = TextNode | ActionNode | BranchNode | TemplateCallNode | LoopControlNode;

export interface TextNode {
  kind: 'text';
  pos: number;
  text: string;
}

/** `{{ pipeline }}`: prints the pipeline's value unless it declares or assigns variables. */
export interface ActionNode {
  kind: 'action';
  pos: number;
  pipe: Pipe;
}

/** `if`, `with` and `range`; `else if` / `else with` are a single branch node inside `elseList`. */
export interface BranchNode {
  kind: 'if' | 'with' | 'range';
  pos: number;
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | null;
}

/** `{{ template "name" pipeline }}` (also what `block` leaves in place). */
export interface TemplateCallNode {
  kind: 'template';
  pos: number;
  name: string;
  pipe: Pipe | null;
}

/** `{{ break }}` / `{{ continue }}`, only inside `range`. */
export interface LoopControlNode {
  kind: 'break' | 'continue';
  pos: number;
}

/** `$x := …`, `$x = …`, `$i, $v := …` followed by commands separated by `|`. */
export interface Pipe {
  pos: number;
  /** Offset just past the pipeline, for error context snippets. */
  end: number;
  isAssign: boolean;
  decl: VarRef[];
  cmds: Command[];
}

export interface VarRef {
  name: string;
  pos: number;
}

/** One pipeline stage: an operand followed by its arguments. */
export interface Command {
  pos: number;
  end: number;
  args: Operand[];
}

/** An operand of a command: a term, possibly followed by a field chain. */
export type Operand =
  | { kind: 'field'; pos: number; names: string[] }
  | { kind: 'variable'; pos: number; name: string; names: string[] }
  | { kind: 'chain'; pos: number; node: Operand; names: string[] }
  | { kind: 'ident'; pos: number; name: string }
  | { kind: 'dot'; pos: number }
  | { kind: 'nil'; pos: number }
  | { kind: 'bool'; pos: number; value: boolean }
  | { kind: 'number'; pos: number; value: number; text: string }
  | { kind: 'string'; pos: number; value: string; text: string }
  | { kind: 'pipe'; pos: number; pipe: Pipe };

/** A named template body: a source's top level, a `define` or a `block`. */
export interface TemplateTree {
  name: string;
  root: Node[];
  /** Index of the source it came from (for positions). */
  source: number;
}
