/**
 * SMTP failure classification (conventions §7): from `code`, `command` and `responseCode`, never from
 * message text. Only a 5xx for the recipient is permanent (a hard bounce); 5xx at other stages (relay
 * refused, authentication, content) and every 4xx or connection error are transient.
 */
import { describe, expect, it } from 'vitest';
import { classifySmtpError } from '../../src/mail/smtp.js';
import { CONNECTION_FAILED } from '../../src/mail/messenger.js';

describe('classifySmtpError', () => {
  it.each([
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 no such user' }, 'permanent'],
    [{ code: 'EENVELOPE', responseCode: 553 }, 'permanent'],
    [{ command: 'RCPT TO', responseCode: 551 }, 'permanent'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452 }, 'transient'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 554 }, 'transient'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 550 }, 'transient'],
    [{ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535 }, 'transient'],
    [{ code: 'ECONNECTION', message: 'connect ECONNREFUSED' }, 'transient'],
    [{ code: 'ETIMEDOUT', message: 'Greeting never received' }, 'transient'],
    [{ code: 'EPROTOCOL', responseCode: 421 }, 'transient'],
    [new Error('something else'), 'transient'],
  ])('%j is %s', (err, kind) => expect(classifySmtpError(err).kind).toBe(kind));

  // Issue 14 finding 6: answers about one message or recipient never decide health; connection and
  // login failures do, and show one generic message whatever happened (finding 10).
  it.each([
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 450 }, 'message'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 }, 'message'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 421 }, 'message'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 451 }, 'message'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 554 }, 'message'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 452 }, 'message'],
    [{ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "x"' }, 'message'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 530 }, 'messenger'],
    [{ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535 }, 'messenger'],
    [{ code: 'ECONNECTION', command: 'CONN', message: 'connect ECONNREFUSED 10.0.0.5:6379' }, 'messenger'],
    [{ code: 'ETIMEDOUT', command: 'CONN', message: 'Greeting never received' }, 'messenger'],
    [{ code: 'ESOCKET', command: 'CONN', message: 'getaddrinfo ENOTFOUND internal' }, 'messenger'],
    [{ code: 'EPROTOCOL', command: 'CONN', responseCode: 421 }, 'messenger'],
    [{ code: 'ETLS', command: 'STARTTLS' }, 'messenger'],
  ])('%j is about the %s', (err, scope) => expect(classifySmtpError(err).scope).toBe(scope));

  it('shows one message for refused, timed-out and unreachable servers, with the details kept for the log', () => {
    const errors = [
      { code: 'ECONNECTION', command: 'CONN', message: 'connect ECONNREFUSED 10.0.0.5:6379' },
      { code: 'ETIMEDOUT', command: 'CONN', message: 'Greeting never received' },
      { code: 'ESOCKET', command: 'CONN', message: 'connect EHOSTUNREACH 10.0.0.6:25' },
      { code: 'EPROTOCOL', command: 'CONN', response: '-ERR unknown command', message: 'Invalid greeting' },
    ].map(classifySmtpError);
    expect(new Set(errors.map((e) => e.message))).toEqual(new Set([CONNECTION_FAILED]));
    expect(errors.every((e) => e.responseCode === null)).toBe(true);
    expect(errors[0]!.detail).toContain('ECONNREFUSED 10.0.0.5:6379');
  });

  it('keeps the SMTP code and the server reply', () => {
    const e = classifySmtpError({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 unknown' });
    expect(e.responseCode).toBe(550);
    expect(e.message).toBe('550 5.1.1 unknown');
  });
});
