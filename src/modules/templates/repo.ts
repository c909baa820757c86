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
  'template-count',
]);

/** Fields of a new template. */
export interface NewTemplate {
  name: string;
  type: string;
  subject: string;
  body: string;
  is_default: boolean;
}

/** Templates table access. */
export class TemplateRepo {
  constructor(private readonly db: Db) {}

  /** Every template, by id. */
  list(): Promise<Template[]> {
    return this.db.run<Template>(Q['template-list']);
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
    const [row] = await q.run<{ id: number }>(Q['template-insert'], { ...t });
    return row!.id;
  }

  /** Number of templates. */
  async count(q: Queryable = this.db): Promise<number> {
    const [row] = await q.run<{ n: number }>(Q['template-count']);
    return row?.n ?? 0;
  }
}
