/**
 * The Logs and Maintenance page views rendered to strings, without a server: values escaped and markup
 * CSP-safe, the follow poll only while following, listmonk's data-cy hooks, errors beside their fields,
 * the dates' defaults, and the confirm step re-sending the first post's fields with `confirmed=1`.
 */
import { describe, expect, it } from 'vitest';
import { renderToString } from 'preact-render-to-string';
import { LogLinesBlock, LogsView, logsUrl } from '../../src/modules/logs/views/logs.js';
import { logLineParts, formatLogLine } from '../../src/modules/logs/service.js';
import { daysBefore, defaultValues, MaintenanceConfirmView, MaintenanceView } from '../../src/modules/maintenance/views/maintenance.js';
import { HOSTILE, expectSafeMarkup, expectCspSafe } from '../helpers/ui.js';

const line = (over: Partial<{ level: string; message: string; instance: string }> = {}) => ({ time: '2026-11-28T02:30:00.123Z', instance: 'node-1', level: 'INFO', message: 'started', ...over });

describe('LogsView', () => {
  it('shows each line with time, instance, level and message, escaped, newest last', () => {
    const html = renderToString(<LogsView lines={[line(), line({ level: 'ERROR', message: HOSTILE, instance: HOSTILE })]} follow={false} limit={500} />);
    expectSafeMarkup(html);
    expect(html).toContain('<li class="log-line log-info"><span class="log-time">2026-11-28T02:30:00.123Z</span> <span class="log-instance">node-1</span> <span class="log-level">INFO</span> <span class="log-message">started</span></li>');
    expect(html.indexOf('log-info')).toBeLessThan(html.indexOf('log-error'));
    expect(html).toContain('role="region"');
    expect(html).toContain('tabindex="0"');
  });

  it('polls only while following; the form and the refresh link keep the choice', () => {
    const off = renderToString(<LogsView lines={[line()]} follow={false} limit={500} />);
    expect(off).not.toContain('every 5s');
    expect(off).toContain('href="/admin/settings/logs" data-cy="refresh"');
    expect(off).not.toMatch(/id="f-follow"[^>]*checked/u);
    const on = renderToString(<LogsView lines={[line()]} follow limit={500} />);
    expect(on).toContain('hx-get="/admin/settings/logs?follow=1" hx-trigger="every 5s" hx-swap="outerHTML"');
    expect(on).toContain('href="/admin/settings/logs?follow=1" data-cy="refresh"');
    expect(on).toMatch(/id="f-follow"[^>]*checked/u);
    expect(on).toContain('hx-trigger="change" hx-target="#log-lines"');
    expectCspSafe(on);
    expect(logsUrl(true)).toBe('/admin/settings/logs?follow=1');
  });

  it('says so when there are no lines yet', () => {
    expect(renderToString(<LogLinesBlock lines={[]} follow={false} />)).toContain('No log lines yet.');
  });

  it('splits a stored line into the parts its text form joins', () => {
    const stored = { instance: 'node-2', created_at: new Date('2026-11-28T02:30:00.123Z'), level: 40, line: { msg: 'paused', component: 'campaign-runner', campaign_id: 3, pid: 1 } };
    expect(logLineParts(stored)).toEqual({ time: '2026-11-28T02:30:00.123Z', instance: 'node-2', level: 'WARN', message: 'campaign-runner: paused {"campaign_id":3}' });
    expect(formatLogLine(stored)).toBe('2026-11-28T02:30:00.123Z node-2 WARN campaign-runner: paused {"campaign_id":3}');
  });
});

describe('MaintenanceView', () => {
  const now = new Date('2026-11-28T03:00:00Z');

  it('has listmonk\'s cards and data-cy hooks, a CSRF token in each delete form, and a confirm question on each delete', () => {
    const html = renderToString(<MaintenanceView csrf="tok-1" values={defaultValues(now)} />);
    for (const cy of ['btn-delete-subscribers', 'btn-delete-subscriptions', 'btn-delete-analytics', 'btn-export-analytics']) expect(html).toContain(`data-cy="${cy}"`);
    expect(html.match(/<input type="hidden" name="_csrf" value="tok-1"\/>/gu)).toHaveLength(3);
    expect(html.match(/data-confirm="/gu)).toHaveLength(3);
    expect(html.match(/data-confirm-step/gu)).toHaveLength(3);
    expect(html).toContain('<form method="get" action="/admin/settings/maintenance/export"');
    expectCspSafe(html);
  });

  it('defaults the deletes to a week ago and the export to 30 days ago (UTC dates)', () => {
    expect(defaultValues(now)).toEqual({ subscribersType: 'orphan', subscriptionsBefore: '2026-11-21', analyticsType: 'all', analyticsBefore: '2026-11-21', exportType: 'views', exportSince: '2026-10-29' });
    expect(daysBefore(new Date('2026-03-01T00:30:00Z'), 1)).toBe('2026-02-28');
  });

  it('shows an error beside its own card\'s field, tied to it, with the sent value kept and escaped', () => {
    const values = { ...defaultValues(now), analyticsBefore: HOSTILE, analyticsType: 'views' };
    const html = renderToString(<MaintenanceView csrf="tok" values={values} errors={{ analytics: { before_date: HOSTILE } }} />);
    expectSafeMarkup(html);
    expect(html).toMatch(/id="f-analytics-before"[^>]*aria-describedby="f-analytics-before-hint f-analytics-before-error" aria-invalid="true"/u);
    expect(html).toContain('<p class="field-error" id="f-analytics-before-error">');
    expect(html).not.toContain('f-subscriptions-before-error');
    expect(html).toContain('<option value="views" selected>');
  });
});

describe('MaintenanceConfirmView', () => {
  it('asks the question and re-sends the fields with confirmed=1, escaped; Cancel goes back', () => {
    const html = renderToString(<MaintenanceConfirmView csrf="tok" action="/admin/settings/maintenance/analytics" question={HOSTILE} fields={{ type: 'views', before_date: HOSTILE }} />);
    expectSafeMarkup(html);
    expect(html).toContain('<form method="post" action="/admin/settings/maintenance/analytics"');
    expect(html).toContain('<input type="hidden" name="type" value="views"/>');
    expect(html).toContain('<input type="hidden" name="confirmed" value="1"/>');
    expect(html).toContain('<input type="hidden" name="_csrf" value="tok"/>');
    expect(html).toContain('href="/admin/settings/maintenance"');
    expect(html).toContain('data-cy="btn-confirm-delete"');
  });
});
