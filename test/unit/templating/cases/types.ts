/**
 * Shape of a table-driven template case: a template (or several named sources), data, and either
 * the expected output or the expected error.
 */
import type { ExecLimits, RenderEnv, TemplateMode, TemplateSource } from '../../../../src/templating/index.js';

export interface Case {
  /** Short description; the template text is used when absent. */
  name?: string;
  tpl: string | TemplateSource[];
  data?: unknown;
  mode?: TemplateMode;
  env?: RenderEnv;
  limits?: ExecLimits;
  shorthands?: boolean;
  /** Expected output. */
  want?: string;
  /** Expected error: class, and a substring or pattern of its message. */
  err?: { type: 'syntax' | 'exec'; msg: string | RegExp; line?: number; column?: number };
}
