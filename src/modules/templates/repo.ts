/**
 * SQL access for templates.
 */
import type { Db, Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { Template } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'template-list',
  'template-get',
  'template-get-default',
  'template-insert',
  'template-update',
  'template-count',
  'template-lock-default',
  'template-clear-default',
  'template-set-default',
  'template-repoint-campaigns',
  'template-delete',
]);

/** Fields of a new template. */
export interface NewTemplate {
  name: string;
  type: string;
  subject: string;
  body: string;
  body_source?: string | null;
  is_default: boolean;
}

/** The editable fields of a template (all of them written on update). */
export interface TemplateFields {
  name: string;
  subject: string;
  body: string;
  body_source: string | null;
}

/** Templates table access. */
export class TemplateRepo {
  constructor(private readonly db: Db) {}

  /** Every template, by id; bodies blanked when `noBody`. */
  list(noBody = false): Promise<Template[]> {
    return this.db.run<Template>(Q['template-list'], { no_body: noBody });
  }

  /** The template with this id, or null. */
  async get(id: number, q: Queryable = this.db): Promise<Template | null> {
    const [row] = await q.run<Template>(Q['template-get'], { id });
    return row ?? null;
  }

  /** The default campaign template, or null when none is marked default. */
  async getDefault(q: Queryable = this.db): Promise<Template | null> {
    const [row] = await q.run<Template>(Q['template-get-default']);
    return row ?? null;
  }

  /** Inserts a template and returns its id. */
  async insert(t: NewTemplate, q: Queryable = this.db): Promise<number> {
    const [row] = await q.run<{ id: number }>(Q['template-insert'], { body_source: null, ...t });
    return row!.id;
  }

  /** Writes the editable fields; false when the template does not exist. */
  async update(id: number, t: TemplateFields): Promise<boolean> {
    return (await this.db.run(Q['template-update'], { id, ...t })).length > 0;
  }

  /** Number of templates. */
  async count(q: Queryable = this.db): Promise<number> {
    const [row] = await q.run<{ n: number }>(Q['template-count']);
    return row?.n ?? 0;
  }

  /**
   * Runs `fn` in a transaction holding the lock that serialises changes of the default template
   * (make default, delete), so each sees the default as the previous change left it.
   */
  withDefaultLock<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => {
      await q.run(Q['template-lock-default']);
      return fn(q);
    });
  }

  /** Makes the campaign template `id` the only default; false when it is not a campaign template. Needs the default lock. */
  async setDefault(id: number, q: Queryable): Promise<boolean> {
    const target = await this.get(id, q);
    if (target === null || target.type !== 'campaign') return false;
    await q.run(Q['template-clear-default'], { id });
    await q.run(Q['template-set-default'], { id });
    return true;
  }

  /**
   * Moves campaigns using template `id` (as template or archive template) to the default template and
   * deletes it. Returns the number of campaigns moved, or null when nothing was deleted (unknown, or
   * the default). Needs the default lock.
   */
  async deleteAndRepoint(id: number, q: Queryable): Promise<number | null> {
    const moved = await q.run(Q['template-repoint-campaigns'], { id });
    const deleted = await q.run(Q['template-delete'], { id });
    return deleted.length > 0 ? moved.length : null;
  }
}
