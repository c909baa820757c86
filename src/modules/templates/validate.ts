/**
 * Checks template-language sources when they are saved, so errors surface as a 400 naming the field,
 * the line and the column instead of failing later at send time (issue 4 §1: "a template that does
 * not parse is rejected when saved (400 with line and column)").
 */
import { FieldError } from '../../errors.js';
import { compile, compileTextPart, type CompiledTemplate, TemplateExecError, type TemplateMode, TemplateSyntaxError } from '../../templating/index.js';

/** The content placeholder every campaign template has exactly once (reference §8). */
export const CONTENT_PLACEHOLDER = '{{ template "content" . }}';

/** `template error at line L, column C: detail` for a template-language error. */
export function describeTemplateError(err: TemplateSyntaxError | TemplateExecError): string {
  return `template error at line ${err.line}, column ${err.column}: ${err.detail}`;
}

/** Runs `fn`; a template-language error becomes a FieldError on `field` with its line and column. */
export function asFieldError<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateSyntaxError || err instanceof TemplateExecError) throw new FieldError(field, describeTemplateError(err));
    throw err;
  }
}

/** Compiles one source; FieldError on `field` with line and column when it does not parse. */
export function checkSource(field: string, source: string, mode: TemplateMode): CompiledTemplate {
  return asFieldError(field, () => compile([{ name: field, source }], { mode }));
}

/**
 * Compiles a subject, alt body or header value as listmonk does: a template only when it holds both
 * `{{` and `}}` (issue 15 item 10), else text sent as written. FieldError on `field` when it does not parse.
 */
export function checkTextPart(field: string, source: string): CompiledTemplate {
  return asFieldError(field, () => compileTextPart(field, source));
}

/** A template as submitted (after merging an update with the stored template). */
export interface TemplateInput {
  type: string;
  subject: string;
  body: string;
}

/**
 * Validates a template of any type (reference §8): the body compiles in HTML mode; a `campaign`
 * template contains {@link CONTENT_PLACEHOLDER} exactly once; a `tx` template has a non-blank subject
 * that compiles in text mode. Throws FieldError naming `body` or `subject`.
 */
export function validateTemplate(t: TemplateInput): void {
  if (t.type === 'tx') {
    if (t.subject.trim() === '') throw new FieldError('subject', 'is required for tx templates');
    checkTextPart('subject', t.subject);
  }
  if (t.body.trim() === '') throw new FieldError('body', 'must not be blank');
  const compiled = checkSource('body', t.body, 'html');
  if (t.type === 'campaign') {
    const n = compiled.countTemplateCalls('content');
    if (n !== 1) {
      throw new FieldError('body', `a campaign template must contain the placeholder ${CONTENT_PLACEHOLDER} exactly once (found ${n})`);
    }
  }
}
