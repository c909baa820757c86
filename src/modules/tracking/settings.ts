/**
 * Privacy settings (listmonk reference §12, §16.3, §17): what campaign messages track and carry.
 * listmonk's defaults: individual tracking off (views and clicks are counted without the subscriber),
 * tracking on, the List-Unsubscribe header on, the preferences page on.
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** Privacy setting declarations. */
export function privacySettings() {
  return {
    individualTracking: defineSetting({
      key: 'privacy.individual_tracking',
      schema: Type.Boolean(),
      default: false,
      description: 'Store which subscriber viewed or clicked. Off: views and clicks are counted anonymously.',
    }),
    disableTracking: defineSetting({
      key: 'privacy.disable_tracking',
      schema: Type.Boolean(),
      default: false,
      description: 'Turn off view and click tracking: TrackView renders nothing, TrackLink the plain URL.',
    }),
    unsubscribeHeader: defineSetting({
      key: 'privacy.unsubscribe_header',
      schema: Type.Boolean(),
      default: true,
      description: 'Add List-Unsubscribe and List-Unsubscribe-Post (RFC 8058 one-click) to campaign messages.',
    }),
    allowPreferences: defineSetting({
      key: 'privacy.allow_preferences',
      schema: Type.Boolean(),
      default: true,
      description: 'Let subscribers change their name and leave single lists on /subscription/…?manage=true.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The privacy switches as the engine and public pages read them. */
export interface PrivacySwitches {
  individualTracking: boolean;
  disableTracking: boolean;
  unsubscribeHeader: boolean;
  allowPreferences: boolean;
}
