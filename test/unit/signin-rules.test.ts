/**
 * Pure rules of the sign-in services (issue 16 "Sign-in" item 4): TOTP secrets as typed, code steps
 * within ±1 step, where a sign-in may send the browser afterwards, and which OIDC provider URLs are
 * accepted.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/modules/auth/oidc.js';
import { providerUrlProblem } from '../../src/modules/auth/oidc-settings.js';
import { codeStep, normalizeSecret } from '../../src/modules/auth/twofa.js';

describe('normalizeSecret', () => {
  it.each([
    ['jbsw y3dp ehpk 3pxp', 'JBSWY3DPEHPK3PXP'],
    ['JBSWY3DPEHPK3PXP====', 'JBSWY3DPEHPK3PXP'],
  ])('accepts %j', (raw, want) => expect(normalizeSecret(raw)).toBe(want));
  it.each(['', 'JBSWY3DP', 'JBSWY3DPEHPK3PX1', 'A'.repeat(129), 'JBSWY3DPEHPK3PX!'])('refuses %j naming the field', (raw) => {
    expect(() => normalizeSecret(raw)).toThrow(/^secret: /);
  });
});

describe('codeStep', () => {
  const secret = new Secret({ size: 20 }).base32;
  const at = 1_800_000_000_000;
  const code = (ms: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: ms });
  const step = Math.floor(at / 30_000);
  it.each([[-30_000, step - 1], [0, step], [30_000, step + 1]])('accepts the code of %i ms away as its own step', (offset, want) => {
    expect(codeStep(secret, code(at + offset), at)).toBe(want);
  });
  it.each([-60_000, 60_000])('refuses the code of %i ms away', (offset) => {
    expect(codeStep(secret, code(at + offset), at)).toBeNull();
  });
});

describe('safeNext', () => {
  it.each([
    ['/admin/lists?page=2', '/admin/lists?page=2'],
    ['/admin', '/admin'],
    [undefined, '/admin'],
    ['', '/admin'],
    ['/', '/admin'],
    ['//evil.example/admin', '/admin'],
    ['/\\evil.example', '/admin'],
    ['https://evil.example/admin', '/admin'],
    ['/administrator', '/admin'],
    ['/admin/\nSet-Cookie: x', '/admin'],
  ])('%j → %j', (raw, want) => expect(safeNext(raw)).toBe(want));
});

describe('providerUrlProblem', () => {
  it.each(['https://accounts.example.com', 'https://login.example.com/realms/main', 'http://127.0.0.1:8080', 'http://localhost:9000/oidc'])('accepts %j', (url) => {
    expect(providerUrlProblem(url)).toBeNull();
  });
  it.each(['', 'accounts.example.com', 'http://accounts.example.com', 'ftp://x.example', 'https://u:p@x.example', 'https://x.example/?a=1', 'https://x.example/#f'])('refuses %j', (url) => {
    expect(providerUrlProblem(url)).not.toBeNull();
  });
});
