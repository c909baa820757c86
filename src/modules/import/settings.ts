/**
 * Settings of the subscriber import (spec 4.6): the size limit of an uploaded file.
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** The import settings declarations. */
export function importSettings() {
  return {
    maxFileSize: defineSetting({
      key: 'import.max_file_size',
      schema: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3 }),
      default: 1024 ** 3,
      description: 'Largest import, in bytes: the uploaded file, and the CSV inside a ZIP once inflated; more answers 413.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The typed declarations returned by {@link importSettings}. */
export type ImportSettings = ReturnType<typeof importSettings>;
