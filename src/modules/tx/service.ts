/**
 * Transactional messages (spec 4.4, reference §9): one tx template rendered per recipient with
 * `.Subscriber` and `.Tx.Data`, sent through a messenger, answered only after the messenger accepted
 * every message. Everything that can be checked is checked before anything is sent: the selector,
 * addresses, template, messenger, sender, headers, and the rendering of every message; so a 400 never
 * follows a partial send. Recipients that are not found, blocklisted or refused by the mail server are
 * named in the error after the others were sent.
 */
import { checkCustomHeaders } from '../../mail/headers.js';
import type { Logger } from 'pino';
import { BadGatewayError, BadRequestError, FieldError, ServiceUnavailableError } from '../../errors.js';
import { formatSender, parseSender } from '../../mail/address.js';
import type { MessengerRegistry, OutgoingMessage } from '../../mail/messenger.js';
import type { TemplateMessage } from '../../mail/template-message.js';
import { compileTextPart, subscriberView, TemplateExecError, TemplateSyntaxError, TxView, type CompiledTemplate } from '../../templating/index.js';
import { validEmail } from '../subscribers/service.js';
import type { Attachment } from './multipart.js';
import type { TxRepo, TxSubscriber } from './repo.js';
import type { TxRequest } from './schemas.js';
import type { TxTemplateCache } from './template-cache.js';
import { deliver, type Delivery } from './deliver.js';

/** Collaborators of {@link TxService}. */
export interface TxServiceDeps {
  repo: TxRepo;
  cache: TxTemplateCache;
  messengers: MessengerRegistry;
  /** Default sender (setting app.from_email). */
  defaultFrom: () => string;
  rootUrl: () => string;
  log: Logger;
}

/** Who to send to, as the request named them. */
interface Selection {
  field: 'subscriber_email' | 'subscriber_id' | 'subscriber_emails' | 'subscriber_ids';
  ids: number[];
  emails: string[];
}

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Transactional messages use cases. */
export class TxService {
  constructor(private readonly d: TxServiceDeps) {}

  /**
   * Sends a tx message to every selected recipient. Throws FieldError/BadRequestError (400) for bad
   * input (nothing sent), and after sending to the others: 400 naming recipients not found or
   * blocklisted, BadGatewayError (502) for recipients the mail server refused, ServiceUnavailableError
   * (503) for temporary failures.
   */
  async send(req: TxRequest, attachments: Attachment[]): Promise<void> {
    const selection = this.select(req);
    const messenger = this.d.messengers.get(req.messenger ?? 'email');
    if (messenger === undefined) {
      throw new FieldError('messenger', `unknown messenger "${req.messenger}"; available: ${this.d.messengers.names().join(', ')}`);
    }
    const from = this.sender(req.from_email);
    const headers = validHeaders(req.headers ?? []);
    const message = await this.compileTemplate(req);
    const subject = req.subject ? compileText('subject', req.subject) : null;
    const altbody = req.altbody && req.content_type !== 'plain' ? compileText('altbody', req.altbody) : null;
    const found = await this.resolve(req.subscriber_mode ?? 'default', selection);
    const sendable = found.recipients.filter((r) => r.status !== 'blocklisted');
    const env = { rootUrl: this.d.rootUrl() };
    const tx = new TxView({ ...req, from_email: from, messenger: messenger.name, content_type: req.content_type ?? 'html' });
    const messages = sendable.map((sub) => {
      const data = { Subscriber: subscriberView(sub), Tx: tx };
      try {
        const m: OutgoingMessage = message.render(data, env, { from, to: { name: sub.name, address: sub.email }, headers, attachments });
        if (subject) m.subject = subject.execute(data, env).replace(/[\r\n]+/gu, ' ');
        if (altbody) m.text = altbody.execute(data, env);
        return m;
      } catch (err) {
        if (!(err instanceof TemplateExecError)) throw err;
        throw new FieldError('template_id', `template ${req.template_id} could not be rendered for ${sub.email}: ${err.message}`);
      }
    });
    const outcome = await deliver(messenger, messages, (email, detail) => this.d.log.warn({ messenger: messenger.name, email, err: detail }, 'tx: could not reach the messenger\'s server'));
    const blocklisted = found.recipients.filter((r) => r.status === 'blocklisted').map((r) => r.email);
    report(selection, { ...outcome, notFound: found.notFound, blocklisted });
  }

  /** Exactly one recipient selector, its values normalised; the mode's rules (reference §9). */
  private select(req: TxRequest): Selection {
    const given = (['subscriber_email', 'subscriber_id', 'subscriber_emails', 'subscriber_ids'] as const).filter((k) => req[k] !== undefined);
    if (given.length !== 1) {
      throw new BadRequestError(`subscriber_email, subscriber_id, subscriber_emails, subscriber_ids: give exactly one of them (got ${given.length === 0 ? 'none' : given.join(' and ')})`);
    }
    const field = given[0]!;
    const mode = req.subscriber_mode ?? 'default';
    if ((field === 'subscriber_id' || field === 'subscriber_ids') && mode !== 'default') {
      throw new FieldError(field, `cannot be used with subscriber_mode "${mode}", which takes e-mail addresses`);
    }
    if (field === 'subscriber_id') return { field, ids: [req.subscriber_id!], emails: [] };
    if (field === 'subscriber_ids') {
      if (req.subscriber_ids!.length === 0) throw new FieldError(field, 'must not be empty');
      return { field, ids: [...new Set(req.subscriber_ids)], emails: [] };
    }
    const raw = field === 'subscriber_email' ? [req.subscriber_email!] : req.subscriber_emails!;
    if (raw.length === 0) throw new FieldError(field, 'must not be empty');
    const emails = raw.map((e, i) => validEmail(e, field === 'subscriber_email' ? field : `${field}.${i}`));
    return { field, ids: [], emails: [...new Set(emails)] };
  }

  private sender(input: string | undefined): string {
    if (input === undefined || input.trim() === '') return this.d.defaultFrom();
    const sender = parseSender(input);
    if (sender === null) throw new FieldError('from_email', 'must be `Name <address>` or an e-mail address');
    return formatSender(sender);
  }

  /** The cached compiled tx template; FieldError('template_id') when missing, not tx, or not compiling. */
  private async compileTemplate(req: TxRequest): Promise<TemplateMessage> {
    const t = await this.d.repo.template(req.template_id);
    if (t === null) throw new FieldError('template_id', `template ${req.template_id} not found`);
    if (t.type !== 'tx') throw new FieldError('template_id', `template ${t.id} is a ${t.type} template; /api/tx needs a transactional (tx) template`);
    const contentType = req.content_type === 'richtext' || req.content_type === undefined ? 'html' : req.content_type;
    try {
      return this.d.cache.get(t, contentType);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) throw new FieldError('template_id', `template ${t.id} does not compile: ${err.message}`);
      throw err;
    }
  }

  /** Looks the recipients up as the mode says; unknown ones are reported or become ephemeral recipients. */
  private async resolve(mode: string, s: Selection): Promise<{ recipients: TxSubscriber[]; notFound: string[] }> {
    const ephemeral = (email: string): TxSubscriber => ({ id: 0, uuid: ZERO_UUID, email, name: '', attribs: {}, status: 'enabled', created_at: null, updated_at: null });
    if (mode === 'external') return { recipients: s.emails.map(ephemeral), notFound: [] };
    if (s.ids.length > 0) {
      const rows = new Map((await this.d.repo.byIds(s.ids)).map((r) => [r.id, r]));
      return { recipients: s.ids.flatMap((id) => rows.get(id) ?? []), notFound: s.ids.filter((id) => !rows.has(id)).map((id) => `subscriber ${id}`) };
    }
    const rows = new Map((await this.d.repo.byEmails(s.emails)).map((r) => [r.email, r]));
    if (mode === 'fallback') return { recipients: s.emails.map((e) => rows.get(e) ?? ephemeral(e)), notFound: [] };
    return { recipients: s.emails.flatMap((e) => rows.get(e) ?? []), notFound: s.emails.filter((e) => !rows.has(e)) };
  }
}

/** Compiles a text-mode template given in the request; FieldError naming `field` when it does not parse. */
function compileText(field: string, source: string): CompiledTemplate {
  try {
    return compileTextPart(field, source);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new FieldError(field, err.message);
    throw err;
  }
}

/**
 * Validates `[{name: value}]` headers with the one header rule (src/mail/headers.ts, issue 14 finding
 * 7); FieldError on `headers.<index>` naming the header.
 */
export function validHeaders(list: Array<Record<string, string>>): Array<[string, string]> {
  return checkCustomHeaders('headers', list);
}

/** Throws the error that describes recipients not sent to, or returns when every one was sent. */
function report(s: Selection, o: Delivery & { notFound: string[]; blocklisted: string[] }): void {
  const problems: string[] = [];
  if (o.notFound.length > 0) problems.push(`not found: ${o.notFound.join(', ')}`);
  if (o.blocklisted.length > 0) problems.push(`blocklisted: ${o.blocklisted.join(', ')}`);
  if (o.refused.length > 0) problems.push(`not accepted: ${o.refused.map((r) => `${r.email} (${r.reason})`).join(', ')}`);
  if (o.failed.length > 0) problems.push(`failed temporarily: ${o.failed.map((r) => `${r.email} (${r.reason})`).join(', ')}`);
  if (problems.length === 0) return;
  const total = o.sent + o.notFound.length + o.blocklisted.length + o.refused.length + o.failed.length;
  const message = `${s.field}: sent to ${o.sent} of ${total} recipient${total === 1 ? '' : 's'}; ${problems.join('; ')}`;
  if (o.failed.length > 0) throw new ServiceUnavailableError(message);
  if (o.refused.length > 0) throw new BadGatewayError(message);
  throw new BadRequestError(message);
}
