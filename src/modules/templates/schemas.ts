/**
 * Schemas of the templates API (spec 2 "Template", 4.3; reference §8).
 */
import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

export const TEMPLATE_TYPES = ['campaign', 'campaign_visual', 'tx'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/** Largest template body accepted (5 MiB, like campaign bodies). */
const MAX_BODY = 5 * 1024 * 1024;

/** A template as the API answers it. */
export const Template = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  type: Type.String(),
  subject: Type.String(),
  body: Type.String(),
  body_source: Type.Union([Type.String(), Type.Null()]),
  is_default: Type.Boolean(),
});
export type Template = Static<typeof Template>;

/** GET /api/templates: `no_body=true` blanks bodies (listmonk). */
export const TemplateListQuery = Type.Object({ no_body: Type.Optional(Type.Boolean()) });
export type TemplateListQuery = Static<typeof TemplateListQuery>;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 2000 }),
  type: Type.Enum(TEMPLATE_TYPES),
  subject: Type.String({ maxLength: 5000 }),
  body: Type.String({ maxLength: MAX_BODY }),
  body_source: Type.Union([Type.String({ maxLength: MAX_BODY }), Type.Null()]),
};

/**
 * POST /api/templates. `subject` is required for `tx` templates (checked by the service); for
 * campaign templates it is stored empty. `body_source` is the visual editor's source.
 */
export const TemplateCreate = Type.Object({
  name: fields.name,
  type: fields.type,
  subject: Type.Optional(fields.subject),
  body: fields.body,
  body_source: Type.Optional(fields.body_source),
});
export type TemplateCreate = Static<typeof TemplateCreate>;

/** PUT /api/templates/:id: every field optional; omitted ones keep their value; `type` cannot change. */
export const TemplateUpdate = Type.Partial(Type.Object(fields));
export type TemplateUpdate = Static<typeof TemplateUpdate>;

/**
 * POST /api/templates/preview, JSON or form: `type` (listmonk's form calls it `template_type`;
 * default `campaign`), `body`, and for `tx` templates an optional `subject`.
 */
export const TemplatePreviewBody = Type.Object({
  type: Type.Optional(fields.type),
  template_type: Type.Optional(fields.type),
  subject: Type.Optional(fields.subject),
  body: fields.body,
});
export type TemplatePreviewBody = Static<typeof TemplatePreviewBody>;
