/**
 * Small parts shared by the users pages (issue 16 "Users", listmonk admin UI map §1.14–1.16): how a
 * time, a user's type, status and 2FA read, and the form's values as strings.
 */
import type { VNode } from 'preact';
import { Badge } from '../../../ui/components/misc.js';
import { t } from '../../../ui/i18n.js';

/**
 * A timestamp as `YYYY-MM-DD HH:MM UTC` (or only `YYYY-MM-DD` with `day`, the full time then in the
 * title) inside `<time datetime>` (ISO 8601), or "Never" for null. Accepts the service's ISO strings
 * or Dates; an unparsable value is shown as given.
 */
export function When({ at, day }: { at: string | Date | null | undefined; day?: boolean }): VNode {
  if (at === null || at === undefined) return <span class="muted">{t('users.never')}</span>;
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return <span>{String(at)}</span>;
  const iso = d.toISOString();
  const full = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return day ? <time datetime={iso} title={full} class="nowrap">{iso.slice(0, 10)}</time> : <time datetime={iso}>{full}</time>;
}

/** The type badge: "API" for API users, nothing for sign-in users (listmonk's table shows only the API tag). */
export function TypeLabel({ type }: { type: string }): VNode {
  return type === 'api' ? <Badge tone="info">{t('users.typeApi')}</Badge> : <span>{t('users.typeUser')}</span>;
}

/** The status badge (enabled / disabled), using the kit's `badge-enabled` / `badge-disabled` tones. */
export function StatusBadge({ status }: { status: string }): VNode {
  return <Badge tone={status === 'disabled' ? 'disabled' : 'enabled'}>{t(status === 'disabled' ? 'users.statusDisabled' : 'users.statusEnabled')}</Badge>;
}

/** Whether two-step sign-in is on (`twofa_type` other than `none`). */
export function TwoFactorLabel({ type }: { type: string }): VNode {
  return type !== 'none' && type !== '' ? <Badge tone="success">{t('users.twoFAOn')}</Badge> : <span class="muted">{t('users.twoFAOff')}</span>;
}
