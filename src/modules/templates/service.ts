/**
 * Templates use cases (spec 4.3, reference §8): create, update, previews, the default template, delete;
 * and installing the shipped templates on first start.
 *
 * Deleting rules: the default template cannot be deleted (campaigns fall back to it); campaigns using
 * a deleted template move to the default; and the template the `app.optin_template_id` setting points
 * at cannot be deleted while it does, because double opt-in e-mails would have no template (the
 * operator points the setting at another tx template first).
 */
import { readFileSync } from 'node:fs';
import type { Db } from '../../db/db.js';
import { BadRequestError, FieldError, NotFoundError } from '../../errors.js';
import type { TemplateRepo } from './repo.js';
import type { Template, TemplateCreate, TemplatePreviewBody, TemplateUpdate } from './schemas.js';
import { renderTemplatePreview } from './preview.js';
import { validateTemplate } from './validate.js';

// Any fixed number; serialises first-start seeding between instances starting together.
const SEED_LOCK_KEY = 7_305_861_990_113;

/** The templates installed on first start, in order (the opt-in confirmation last). */
export const SHIPPED_TEMPLATES = [
  { name: 'Default campaign template', type: 'campaign', subject: '', file: 'campaign-default.tpl', isDefault: true },
  { name: 'Default archive template', type: 'campaign', subject: '', file: 'archive-default.tpl', isDefault: false },
  { name: 'Sample transactional template', type: 'tx', subject: 'Welcome {{ .Subscriber.Name }}', file: 'sample-tx.tpl', isDefault: false },
  { name: 'Opt-in confirmation', type: 'tx', subject: 'Confirm your subscription', file: 'optin-confirmation.tpl', isDefault: false },
] as const;

/** Reads a shipped default template body from ./defaults. */
export function defaultTemplateBody(file: string): string {
  return readFileSync(new URL(`./defaults/${file}`, import.meta.url), 'utf8');
}

/** What the templates service needs from outside its module. */
export interface TemplateServiceDeps {
  /** Public base URL (setting `app.root_url`), for links in previews. */
  rootUrl: () => string;
  /** The opt-in confirmation template id (setting `app.optin_template_id`). */
  optinTemplateId: () => number | null;
}

function nonBlank(field: string, value: string): string {
  const v = value.trim();
  if (v === '') throw new FieldError(field, 'must not be blank');
  return v;
}

/** Templates use cases. */
export class TemplateService {
  constructor(
    private readonly db: Db,
    private readonly repo: TemplateRepo,
    private readonly d: TemplateServiceDeps,
  ) {}

  /** Every template (GET /api/templates; not paginated); bodies blanked with `noBody`. */
  list(noBody = false): Promise<Template[]> {
    return this.repo.list(noBody);
  }

  /** One template; NotFoundError when unknown. */
  async get(id: number): Promise<Template> {
    const t = await this.repo.get(id);
    if (t === null) throw new NotFoundError(`template ${id} not found`);
    return t;
  }

  /** Validates and creates a template (never the default; see {@link makeDefault}). */
  async create(input: TemplateCreate): Promise<Template> {
    const name = nonBlank('name', input.name);
    const subject = input.type === 'tx' ? (input.subject ?? '') : '';
    validateTemplate({ type: input.type, subject, body: input.body });
    const bodySource = input.type === 'campaign_visual' ? (input.body_source ?? null) : null;
    const id = await this.repo.insert({ name, type: input.type, subject, body: input.body, body_source: bodySource, is_default: false });
    return this.get(id);
  }

  /** Updates the given fields (omitted ones keep their value); a template's type cannot change. */
  async update(id: number, input: TemplateUpdate): Promise<Template> {
    const stored = await this.get(id);
    if (input.type !== undefined && input.type !== stored.type) {
      throw new FieldError('type', `cannot change a "${stored.type}" template to "${input.type}"; create a new template instead`);
    }
    const name = input.name === undefined ? stored.name : nonBlank('name', input.name);
    const subject = stored.type === 'tx' ? (input.subject ?? stored.subject) : '';
    const body = input.body ?? stored.body;
    validateTemplate({ type: stored.type, subject, body });
    const bodySource = stored.type === 'campaign_visual' ? (input.body_source === undefined ? stored.body_source : input.body_source) : null;
    if (!(await this.repo.update(id, { name, subject, body, body_source: bodySource }))) throw new NotFoundError(`template ${id} not found`);
    return this.get(id);
  }

  /** Renders a stored template with sample data (GET /api/templates/:id/preview); HTML. */
  async preview(id: number): Promise<string> {
    const t = await this.get(id);
    return renderTemplatePreview(t, this.d.rootUrl());
  }

  /** Renders a posted template without saving it (POST /api/templates/preview); HTML. */
  previewPosted(input: TemplatePreviewBody): string {
    const type = input.type ?? input.template_type ?? 'campaign';
    validateTemplate({ type, subject: type === 'tx' ? (input.subject ?? 'Preview') : '', body: input.body });
    return renderTemplatePreview({ type, body: input.body }, this.d.rootUrl());
  }

  /**
   * Makes a campaign template the default (the only one) and answers it. A `tx` or `campaign_visual`
   * template cannot be the default (400); the current default stays (listmonk leaves none).
   */
  async makeDefault(id: number): Promise<Template> {
    const t = await this.get(id);
    if (t.type !== 'campaign') {
      throw new FieldError('type', `only a campaign template can be the default; template ${id} is a "${t.type}" template`);
    }
    const done = await this.repo.withDefaultLock((q) => this.repo.setDefault(id, q));
    if (!done) throw new NotFoundError(`template ${id} not found`);
    return this.get(id);
  }

  /**
   * Deletes a template; campaigns using it move to the default template. Refused (400) for the
   * default template and for the opt-in confirmation template named by `app.optin_template_id`.
   */
  async remove(id: number): Promise<void> {
    await this.get(id);
    if (this.d.optinTemplateId() === id) {
      throw new BadRequestError(`template ${id} is the opt-in confirmation template (setting app.optin_template_id); point that setting at another tx template before deleting it`);
    }
    await this.repo.withDefaultLock(async (q) => {
      const t = await this.repo.get(id, q);
      if (t === null) throw new NotFoundError(`template ${id} not found`);
      if (t.is_default) throw new BadRequestError(`template ${id} is the default template and cannot be deleted; make another template the default first`);
      if ((await this.repo.deleteAndRepoint(id, q)) === null) throw new NotFoundError(`template ${id} not found`);
    });
  }

  /**
   * Installs the shipped templates when the database has none (first start): the default campaign
   * template (`is_default`), the archive template, a sample transactional template, and the opt-in
   * confirmation template (reference §8). Returns the opt-in template's id when it installed them,
   * null when templates already existed. Safe when several instances start at once.
   */
  async installDefaults(): Promise<{ optinTemplateId: number } | null> {
    return this.db.tx(async (q) => {
      await q.sql('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
      if ((await this.repo.count(q)) > 0) return null;
      for (const t of SHIPPED_TEMPLATES.slice(0, 3)) {
        await this.repo.insert({ name: t.name, type: t.type, subject: t.subject, body: defaultTemplateBody(t.file), is_default: t.isDefault }, q);
      }
      const optin = SHIPPED_TEMPLATES[3]!;
      const optinTemplateId = await this.repo.insert({ name: optin.name, type: optin.type, subject: optin.subject, body: defaultTemplateBody(optin.file), is_default: false }, q);
      return { optinTemplateId };
    });
  }
}
