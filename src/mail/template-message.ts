/**
 * Messages that are not campaign messages: transactional messages and system e-mails such as the
 * double opt-in confirmation. A template (subject + body) is compiled once and rendered per recipient;
 * the body is HTML (markdown converted first) or plain text, the subject and altbody are never
 * HTML-escaped (reference §16.1). No List-Unsubscribe headers are added (reference §9).
 */
import { randomUUID } from 'node:crypto';
import { compile, compileTextPart, type CompiledTemplate, type RenderEnv } from '../templating/index.js';
import { bodyAsHtml } from './campaign-message.js';
import { emailDomain, parseSender } from './address.js';
import type { OutgoingMessage } from './messenger.js';

/** Sources of a message template. */
export interface TemplateMessageSource {
  /** Template-language source of the subject (text mode; sent as written unless it holds `{{` and `}}`, as listmonk). */
  subject: string;
  /** Template-language source of the body. */
  body: string;
  /** `html`/`richtext` as they are, `markdown` converted to HTML first, `plain` sent as text/plain. */
  contentType: 'html' | 'richtext' | 'markdown' | 'plain';
  /** Optional plain-text alternative (text mode). */
  altbody?: string | null;
  /** Name used in error messages, e.g. `template 12`. */
  name?: string;
}

/** Who a rendered message goes to and from, plus extra headers and attachments. */
export interface Envelope {
  from: string;
  to: { name: string; address: string };
  headers?: Array<[string, string]>;
  attachments?: OutgoingMessage['attachments'];
}

/** A compiled message template. Throws TemplateSyntaxError at construction when a source does not parse. */
export class TemplateMessage {
  private readonly subject: CompiledTemplate;
  private readonly body: CompiledTemplate;
  private readonly altbody: CompiledTemplate | null;
  private readonly plain: boolean;

  constructor(source: TemplateMessageSource) {
    const name = source.name ?? 'message';
    this.plain = source.contentType === 'plain';
    this.subject = compileTextPart(`${name} subject`, source.subject);
    this.body = compile([{ name, source: bodyAsHtml(source.body, source.contentType) }], { mode: this.plain ? 'text' : 'html' });
    this.altbody = !this.plain && source.altbody ? compileTextPart(`${name} altbody`, source.altbody) : null;
  }

  /** Renders for one recipient. Throws TemplateExecError when the template fails for this data. */
  render(data: unknown, env: RenderEnv, envelope: Envelope): OutgoingMessage {
    const body = this.body.execute(data, env);
    const domain = emailDomain(parseSender(envelope.from)?.address ?? 'mailroom@localhost');
    return {
      from: envelope.from,
      to: envelope.to,
      subject: this.subject.execute(data, env).replace(/[\r\n]+/gu, ' '),
      ...(this.plain ? { text: body } : { html: body }),
      ...(this.altbody ? { text: this.altbody.execute(data, env) } : {}),
      headers: envelope.headers ?? [],
      messageId: `${randomUUID()}@${domain}`,
      ...(envelope.attachments ? { attachments: envelope.attachments } : {}),
    };
  }
}
