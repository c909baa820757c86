/**
 * Settings of the public campaign archive (reference §12, §17): listmonk's keys and defaults.
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** The archive's setting declarations (added to the SettingsService in src/deps.ts). */
export function archiveSettings() {
  return {
    enabled: defineSetting({
      key: 'app.enable_public_archive',
      schema: Type.Boolean(),
      default: true,
      description: 'Serve the public archive (/archive, /archive.xml) of campaigns marked `archive`.',
    }),
    rssContent: defineSetting({
      key: 'app.enable_public_archive_rss_content',
      schema: Type.Boolean(),
      default: true,
      description: 'Include each campaign\'s full HTML in the archive RSS feed (otherwise titles and links only).',
    }),
  } satisfies Record<string, SettingDef>;
}
