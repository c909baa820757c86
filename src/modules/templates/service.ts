/**
 * Templates use cases (spec 4.3). Installs the default campaign template on first start.
 */
import { readFileSync } from 'node:fs';
import type { Db } from '../../db/db.js';
import { NotFoundError } from '../../errors.js';
import type { TemplateRepo } from './repo.js';
import type { Template } from './schemas.js';

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

/** Templates use cases. */
export class TemplateService {
  constructor(
    private readonly db: Db,
    private readonly repo: TemplateRepo,
  ) {}

  /** Every template (GET /api/templates; not paginated). */
  list(): Promise<Template[]> {
    return this.repo.list();
  }

  /** One template; NotFoundError when unknown. */
  async get(id: number): Promise<Template> {
    const t = await this.repo.get(id);
    if (t === null) throw new NotFoundError(`template ${id} not found`);
    return t;
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
