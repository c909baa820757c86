/**
 * Compiled transactional templates, cached (reference §9: listmonk compiles tx templates once). An
 * entry is keyed by template id, the template's `updated_at` and the content type, so an edit made
 * through the API of any instance is picked up by the next request (which reads the row anyway) and
 * the stale compilation is dropped.
 */
import { TemplateMessage } from '../../mail/template-message.js';
import type { TxTemplate } from './repo.js';

/** Most templates kept compiled; the least recently used is dropped beyond it. */
const MAX_ENTRIES = 200;

type ContentType = 'html' | 'markdown' | 'plain';

/** A small LRU of compiled tx templates. */
export class TxTemplateCache {
  private readonly entries = new Map<string, TemplateMessage>();

  /** The compiled template for this row and content type. Throws TemplateSyntaxError when it does not parse. */
  get(t: TxTemplate, contentType: ContentType): TemplateMessage {
    const key = `${t.id}:${t.updated_at.getTime()}:${contentType}`;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit); // most recently used last
      return hit;
    }
    const compiled = new TemplateMessage({ subject: t.subject, body: t.body, contentType, name: `template ${t.id}` });
    for (const k of this.entries.keys()) if (k.startsWith(`${t.id}:`) && !k.startsWith(`${t.id}:${t.updated_at.getTime()}:`)) this.entries.delete(k);
    this.entries.set(key, compiled);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return compiled;
  }

  /** Number of compiled templates held (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
