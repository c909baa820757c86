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
   * template (`is_default`). Safe when several instances start at once.
   */
  async installDefaults(): Promise<void> {
    await this.db.tx(async (q) => {
      await q.sql('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
      if ((await this.repo.count(q)) > 0) return;
      await this.repo.insert(
        { name: 'Default campaign template', type: 'campaign', subject: '', body: defaultTemplateBody('campaign.html'), is_default: true },
        q,
      );
    });
  }
}
