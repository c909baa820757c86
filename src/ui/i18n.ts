/**
 * The admin UI's access to the message catalogue (src/i18n/*.json, the one templates' `L.T` use; issue
 * 16: every string through one catalogue). Views call `t('key')` or `t('key', { name: 'x' })`.
 */
import { I18n } from '../templating/i18n.js';

let current: I18n | undefined;

/** The catalogue in use (English now; a later setting `app.lang` can choose another). */
function i18n(): I18n {
  current ??= I18n.for('en');
  return current;
}

/**
 * The text of catalogue `key` (singular form), with `{name}` parameters substituted from `params`.
 * An unknown key answers the key itself (listmonk's rule), so a missing string is visible, not blank.
 */
export function t(key: string, params?: Readonly<Record<string, string | number>>): string {
  if (params === undefined) return i18n().T(key);
  return i18n().Ts(key, ...Object.entries(params).flatMap(([k, v]) => [k, String(v)]));
}

/** The plural form of `key` when `n` > 1, else the singular (listmonk's `Tc`). */
export function tc(key: string, n: number): string {
  return i18n().Tc(key, n);
}

/** True when the catalogue has `key` (used to accept notice keys coming back from the browser). */
export function hasMessage(key: string): boolean {
  return i18n().T(key) !== key;
}
