/**
 * Classifying database errors: what workers treat as "the database is away, wait and retry" versus a
 * bad statement. pg raises some connection losses without a SQLSTATE, only with a message.
 */
import { describe, expect, it } from 'vitest';
import { isConnectionError } from '../../src/db/db.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionError', () => {
  it('is true for refused and reset connections, admin shutdown and connection exceptions', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08003']) {
      expect(isConnectionError(withCode(code)), code).toBe(true);
    }
  });

  it("is true for pg's code-less connection-lost errors", () => {
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isConnectionError(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isConnectionError(new Error('Client was closed and is not queryable'))).toBe(true);
  });

  it('is false for bad statements, data errors and other failures', () => {
    expect(isConnectionError(withCode('23505', 'duplicate key value'))).toBe(false);
    expect(isConnectionError(withCode('42601', 'syntax error'))).toBe(false);
    expect(isConnectionError(withCode('57014', 'canceling statement due to statement timeout'))).toBe(false);
    expect(isConnectionError(new Error('something else, mentioning Connection terminated later'))).toBe(false);
    expect(isConnectionError(null)).toBe(false);
    expect(isConnectionError('Connection terminated')).toBe(false);
  });
});
