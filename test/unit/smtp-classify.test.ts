/**
 * SMTP failure classification (conventions §7): from `code`, `command` and `responseCode`, never from
 * message text. Only a 5xx for the recipient is permanent (a hard bounce); 5xx at other stages (relay
 * refused, authentication, content) and every 4xx or connection error are transient.
 */
import { describe, expect, it } from 'vitest';
import { classifySmtpError } from '../../src/mail/smtp.js';

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

  it('keeps the SMTP code and the server reply', () => {
    const e = classifySmtpError({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 unknown' });
    expect(e.responseCode).toBe(550);
    expect(e.message).toBe('550 5.1.1 unknown');
  });
});
