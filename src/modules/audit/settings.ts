/**
 * Settings of the audit log (issue 16 "Identity" item 5; Mailroom's own: listmonk has no audit log).
 */
import { Type } from 'typebox';
import { defineSetting, type SettingDef } from '../../settings/definitions.js';

/** The audit module's setting declarations. */
export function auditSettings() {
  return {
    retentionDays: defineSetting({
      key: 'audit.retention_days',
      schema: Type.Integer({ minimum: 0, maximum: 36_500 }),
      default: 90,
      description: 'Days an audit log entry is kept; older entries are deleted hourly. 0 keeps every entry.',
    }),
  } satisfies Record<string, SettingDef>;
}

/** The typed declarations returned by {@link auditSettings}. */
export type AuditSettings = ReturnType<typeof auditSettings>;
