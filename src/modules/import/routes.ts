/**
 * Route table of the import API (spec 4.6).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import { ImportStatus } from './schemas.js';
import type { ImportService } from './service.js';

const tags = ['import'];

/** Registers the import routes. */
export function importRoutes(app: App, imports: ImportService): void {
  app.get('/api/import/subscribers', {
    config: { permission: 'subscribers:import' },
    schema: { tags, summary: 'Status of the current import', response: { 200: Envelope(ImportStatus), ...errorResponses } },
  }, async () => ({ data: await imports.status() }));

  app.get('/api/import/subscribers/logs', {
    config: { permission: 'subscribers:import' },
    schema: { tags, summary: 'Log of the current import, one line per event', response: { 200: Envelope(Type.String()), ...errorResponses } },
  }, async () => ({ data: await imports.logs() }));

  app.post('/api/import/subscribers', {
    schema: {
      tags,
      summary: 'Start an import: multipart/form-data with `file` (CSV, or a ZIP holding one) and `params` (JSON)',
      consumes: ['multipart/form-data'],
      response: { 200: Envelope(ImportStatus), ...errorResponses },
    },
    config: { upload: true, permission: 'subscribers:import' },
  }, async (req) => ({ data: await imports.start(req) }));

  app.delete('/api/import/subscribers', {
    config: { permission: 'subscribers:import' },
    schema: { tags, summary: 'Stop the running import, or clear a finished one', response: { 200: Envelope(ImportStatus), ...errorResponses } },
  }, async () => ({ data: await imports.stop() }));
}
