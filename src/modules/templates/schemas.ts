/**
 * Schemas of the templates API (spec 2 "Template", 4.3; reference §8).
 */
import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

export const TEMPLATE_TYPES = ['campaign', 'campaign_visual', 'tx'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

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
