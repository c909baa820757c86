/** Runs one table case against compile()/execute(). */
import { expect } from 'vitest';
import { compile, TemplateExecError, TemplateSyntaxError } from '../../../src/templating/index.js';
import type { Case } from './cases/types.js';

/** A fixed clock so Date/now cases are deterministic: 2024-03-05 14:07:09.250 UTC (a Tuesday). */
export const FIXED_NOW = new Date(Date.UTC(2024, 2, 5, 14, 7, 9, 250));

export function caseName(c: Case): string {
  if (c.name) return c.name;
  const t = typeof c.tpl === 'string' ? c.tpl : c.tpl.map((s) => `${s.name}:${s.source}`).join(' | ');
  return t.length > 90 ? `${t.slice(0, 90)}…` : t;
}

export function runCase(c: Case): void {
  const sources = typeof c.tpl === 'string' ? [{ name: 'content', source: c.tpl }] : c.tpl;
  const env = { now: () => FIXED_NOW, ...c.env };
  const render = (): string => {
    const t = compile(sources, { mode: c.mode ?? 'text', ...(c.shorthands === undefined ? {} : { shorthands: c.shorthands }) });
    return t.execute(c.data, env, c.limits);
  };
  if (!c.err) {
    expect(render()).toBe(c.want);
    return;
  }
  let thrown: unknown;
  try {
    render();
  } catch (e) {
    thrown = e;
  }
  const cls = c.err.type === 'syntax' ? TemplateSyntaxError : TemplateExecError;
  expect(thrown, 'expected an error').toBeInstanceOf(cls);
  const e = thrown as TemplateSyntaxError | TemplateExecError;
  if (typeof c.err.msg === 'string') expect(e.message).toContain(c.err.msg);
  else expect(e.message).toMatch(c.err.msg);
  if (c.err.line !== undefined) expect(e.line).toBe(c.err.line);
  if (c.err.column !== undefined) expect(e.column).toBe(c.err.column);
}
