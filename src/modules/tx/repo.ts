/**
 * SQL access for transactional messages: the template and the recipients (read-only).
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['tx-template-get', 'tx-subscribers-by-id', 'tx-subscribers-by-email']);

/** The template fields a tx message needs. */
export interface TxTemplate {
  id: number;
  type: string;
  subject: string;
  body: string;
  updated_at: Date;
}

/** A recipient subscriber row. */
export interface TxSubscriber {
  id: number;
  uuid: string;
  email: string;
  name: string;
  attribs: Record<string, unknown>;
  status: string;
  created_at: Date | null;
  updated_at: Date | null;
}

/** Reads templates and subscribers for /api/tx. */
export class TxRepo {
  constructor(private readonly db: Db) {}

  /** The template with this id, or null. */
  async template(id: number): Promise<TxTemplate | null> {
    const [row] = await this.db.run<TxTemplate>(Q['tx-template-get'], { id });
    return row ?? null;
  }

  /** The subscribers among `ids` that exist. */
  byIds(ids: number[]): Promise<TxSubscriber[]> {
    return this.db.run<TxSubscriber>(Q['tx-subscribers-by-id'], { ids });
  }

  /** The subscribers among `emails` (normalised) that exist. */
  byEmails(emails: string[]): Promise<TxSubscriber[]> {
    return this.db.run<TxSubscriber>(Q['tx-subscribers-by-email'], { emails });
  }
}
