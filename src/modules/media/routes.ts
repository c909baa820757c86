/**
 * Route table of the media API (spec 4.5) and the public file server at /uploads/ (reference §11).
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { FieldError } from '../../errors.js';
import { asMultipartError } from '../../http/form.js';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, TrueEnvelope } from '../../http/schemas.js';
import { isInlineType } from './names.js';
import { Media, MediaQuery, UploadParams } from './schemas.js';
import type { MediaService, ServedFile } from './service.js';

const tags = ['media'];

/**
 * Headers that keep an uploaded file from ever running script in Mailroom's origin: the browser must
 * not guess another type (nosniff), documents are sandboxed with nothing allowed to load (so an SVG or
 * HTML file opened directly cannot script), and anything not safe to show inline is a download.
 * PDFs skip the sandbox (browsers' PDF viewers refuse sandboxed documents and run PDF scripts outside
 * the page's origin anyway).
 */
function sendFile(reply: FastifyReply, f: ServedFile): FastifyReply {
  const inline = isInlineType(f.contentType);
  void reply
    .header('Content-Type', f.contentType)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${f.filename}"`)
    .header('Cache-Control', 'public, max-age=86400');
  if (!f.contentType.startsWith('application/pdf')) {
    void reply.header('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox");
  }
  if (f.size !== null) void reply.header('Content-Length', f.size);
  return reply.send(f.stream);
}

/** Registers the media routes and /uploads/. */
export function mediaRoutes(app: App, media: MediaService): void {
  app.get('/api/media', {
    config: { permission: 'media:get' },
    schema: { tags, summary: 'List media of the current store, newest first', querystring: MediaQuery, response: { 200: Envelope(Type.Array(Media)), ...errorResponses } },
  }, async (req) => ({ data: await media.list(req.query) }));

  app.get('/api/media/:id', {
    config: { permission: 'media:get' },
    schema: { tags, summary: 'Get one media object', params: IdParams, response: { 200: Envelope(Media), ...errorResponses } },
  }, async (req) => ({ data: await media.get(req.params.id) }));

  app.post('/api/media', {
    schema: { tags, summary: 'Upload a file (multipart/form-data, field `file`)', consumes: ['multipart/form-data'], response: { 200: Envelope(Media), ...errorResponses } },
    config: { upload: true, permission: 'media:manage' },
  }, async (req) => {
    // preservePath: the name as sent, so a name with a path is refused rather than silently cut down.
    const part = await req.file({ limits: { fileSize: media.maxFileSize(), files: 1, fields: 20, parts: 21 }, preservePath: true }).catch((err: unknown) => {
      throw asMultipartError(err);
    });
    if (part === undefined) throw new FieldError('file', 'is required');
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new FieldError('file', `is required (the upload was sent as "${part.fieldname}")`);
    }
    return { data: await media.upload(part) };
  });

  app.delete('/api/media/:id', {
    config: { permission: 'media:manage' },
    schema: { tags, summary: 'Delete a file and its thumbnail', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await media.delete(req.params.id);
    return { data: true as const };
  });

  app.get('/uploads/:filename', {
    config: { public: true },
    schema: { tags, summary: 'An uploaded file', params: UploadParams },
  }, async (req, reply) => sendFile(reply, await media.open(req.params.filename, false)));

  app.get('/uploads/thumbs/:filename', {
    config: { public: true },
    schema: { tags, summary: 'The thumbnail of an uploaded image', params: UploadParams },
  }, async (req, reply) => sendFile(reply, await media.open(req.params.filename, true)));
}
