/**
 * Route table of the transactional API (spec 4.4).
 */
import type { App } from '../../http/types.js';
import { ErrorBody, errorResponses, TrueEnvelope } from '../../http/schemas.js';
import { attachmentsOf, txMultipart } from './multipart.js';
import { TxRequest } from './schemas.js';
import type { TxService } from './service.js';

const tags = ['tx'];

/** Registers the tx routes. `maxAttachments` is the current attachment limit in bytes. */
export function txRoutes(app: App, tx: TxService, maxAttachments: () => number): void {
  app.post('/api/tx', {
    preValidation: txMultipart(maxAttachments),
    schema: {
      tags,
      summary: 'Send a transactional message (JSON, or multipart with the JSON in `data` and `file` attachments)',
      consumes: ['application/json', 'multipart/form-data'],
      body: TxRequest,
      response: { 200: TrueEnvelope, ...errorResponses, 502: ErrorBody },
    },
    config: { upload: true, permission: 'tx:send' },
  }, async (req) => {
    await tx.send(req.body, attachmentsOf(req));
    return { data: true as const };
  });
}
