/**
 * Settings of transactional messages (spec 4.4): the attachment size limit.
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** The tx settings declarations. */
export function txSettings() {
  return {
    maxAttachmentsSize: defineSetting({
      key: 'tx.max_attachments_size',
      schema: Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024 }),
      default: 10 * 1024 * 1024,
      description: 'Largest total size of the attachments of one transactional request, in bytes; more answers 413.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The typed declarations returned by {@link txSettings}. */
export type TxSettings = ReturnType<typeof txSettings>;
