/**
 * Fixtures for UI kit tests: a principal with given permissions, a page context, fake assets, and
 * checks that rendered markup is CSP-safe.
 */
import { expect } from 'vitest';
import type { Permission, Principal } from '../../src/http/access.js';
import type { Asset, AssetSet } from '../../src/ui/assets.js';
import type { PageContext } from '../../src/ui/context.js';

/** A session principal holding `permissions` (role 2, not Super Admin unless `userRoleId: 1`). */
export function makePrincipal(permissions: readonly Permission[], over: Partial<Principal> = {}): Principal {
  return {
    userId: 7,
    username: 'writer',
    name: 'Wren Writer',
    email: 'wren@example.com',
    type: 'user',
    userRoleId: 2,
    userRoleName: 'Writers',
    permissions,
    listRoleId: null,
    lists: new Map(),
    method: 'session',
    session: { id: 'sess', csrf: 'csrf-token-123' },
    ...over,
  };
}

/** Assets with fixed names (no build). */
export function fakeAssets(): AssetSet {
  const a = (file: string): Asset => ({ file, contentType: 'text/plain', body: Buffer.from('') });
  const byEntry = new Map([
    ['main.js', a('main-000000000000.js')],
    ['admin.css', a('admin-000000000000.css')],
  ]);
  return { byEntry, byFile: new Map([...byEntry.values()].map((x) => [x.file, x])) };
}

/** A page context for `principal` at `path`. */
export function makeContext(principal: Principal, path = '/admin', over: Partial<PageContext> = {}): PageContext {
  return { principal, csrf: principal.session?.csrf ?? '', path, url: path, notice: null, site: { name: 'Mailroom', logoUrl: null }, assets: fakeAssets(), ...over };
}

/** A value that breaks out of text and attributes if anything renders it unescaped. */
export const HOSTILE = `<script>alert(1)</script>"'&<b>bold</b>`;

/** Fails unless `html` is free of the hostile value's markup and of anything the admin CSP blocks. */
export function expectSafeMarkup(html: string): void {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<b>bold');
  expect(html).not.toMatch(/="[^"]*"'&/u); // an attribute closed early by the hostile quote
  expectCspSafe(html);
}

/** Fails when `html` has an inline script, an event-handler attribute, a style attribute or a <style>. */
export function expectCspSafe(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/iu);
  expect(html).not.toMatch(/\son[a-z]+\s*=/iu);
  expect(html).not.toMatch(/\sstyle\s*=/iu);
  expect(html).not.toMatch(/<style[\s>]/iu);
  expect(html).not.toMatch(/javascript:/iu);
}
