/**
 * LoginThrottle reservations (issue 14 finding 5): a check in flight counts against the limit until it
 * is settled, concurrent attempts with the same credentials share one reservation, and settling twice
 * counts once.
 */
import { describe, expect, it } from 'vitest';
import { LoginThrottle, type LoginAttempt } from '../../src/http/security.js';

describe('LoginThrottle.reserve', () => {
  it('lets at most the limit of distinct checks be in flight, and counts only failures', () => {
    let now = 0;
    const th = new LoginThrottle(3, 1000, () => now);
    const a = th.reserve('ip', 'k1');
    const b = th.reserve('ip', 'k2');
    const c = th.reserve('ip', 'k3');
    expect([a, b, c].every((x) => x !== null)).toBe(true);
    expect(th.reserve('ip', 'k4')).toBeNull();
    expect(th.retryAfter('ip')).toBe(1000);
    expect(th.reserve('other', 'k4')).not.toBeNull();
    a!.succeeded();
    const d = th.reserve('ip', 'k4') as LoginAttempt;
    expect(d).not.toBeNull();
    b!.failed();
    c!.cancelled();
    d.failed();
    expect(th.pending('ip')).toBe(0);
    // Two failures counted: one more check allowed, then the window must pass.
    const e = th.reserve('ip', 'k5') as LoginAttempt;
    e.failed();
    expect(th.reserve('ip', 'k6')).toBeNull();
    now = 400;
    expect(th.retryAfter('ip')).toBe(600);
    now = 1001;
    expect(th.reserve('ip', 'k6')).not.toBeNull();
  });

  it('shares one reservation between attempts with the same credentials; settling twice counts once', () => {
    const th = new LoginThrottle(2, 1000, () => 0);
    const first = th.reserve('ip', 'same') as LoginAttempt;
    const joiners = Array.from({ length: 50 }, () => th.reserve('ip', 'same') as LoginAttempt);
    expect(joiners.every((j) => j !== null)).toBe(true);
    expect(th.pending('ip')).toBe(1);
    first.failed();
    for (const j of joiners) j.failed();
    first.failed();
    expect(th.pending('ip')).toBe(0);
    expect(th.retryAfter('ip')).toBe(0); // one failure of two
    th.fail('ip');
    expect(th.retryAfter('ip')).toBe(1000);
  });
});
