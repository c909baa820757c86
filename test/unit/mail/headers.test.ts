/**
 * The one rule for custom headers (issue 14 finding 7): names that add recipients, change the sender or
 * the envelope, or that Mailroom sets are refused in any letter case; names with whitespace or line
 * breaks (which nodemailer would trim back to `Bcc`) are not valid field names; values hold no line
 * breaks. The send-time guard drops what the rule refuses.
 */
import { describe, expect, it } from 'vitest';
import { checkCustomHeaders, headerNameProblem, sendableHeaders } from '../../../src/mail/headers.js';

describe('headerNameProblem', () => {
  it.each(['X-Campaign', 'Reply-To', 'List-Id', 'X-Bcc', 'Bcc-Note', 'Precedence', 'X-Listmonk-Campaign'])('accepts %j', (name) => {
    expect(headerNameProblem(name)).toBeNull();
  });

  it.each(['Bcc', 'bcc', 'BCC', 'bCc', 'Cc', 'CC', 'To', 'to', 'Resent-Bcc', 'RESENT-TO', 'resent-cc'])('refuses %j: adds recipients', (name) => {
    expect(headerNameProblem(name)).toBe(`${JSON.stringify(name)} would add recipients to every message and cannot be given`);
  });

  it.each(['From', 'Sender', 'sender', 'Return-Path', 'RETURN-PATH', 'Resent-From', 'Resent-Sender', 'Resent-Date', 'Resent-Message-ID'])('refuses %j: sender or envelope', (name) => {
    expect(headerNameProblem(name)).toMatch(/would change the sender or the envelope and cannot be given/);
  });

  it.each(['Subject', 'Date', 'Message-ID', 'message-id', 'MIME-Version', 'Content-Type', 'content-transfer-encoding', 'Content-Disposition', 'Content-ID'])('refuses %j: set by Mailroom', (name) => {
    expect(headerNameProblem(name)).toMatch(/is set by Mailroom and cannot be given$/);
  });

  it.each([' Bcc', 'Bcc ', '\tBcc', 'Bcc\r\n', '\r\nBcc', 'B cc', 'Bcc:', 'X-A\r\nBcc', 'Bсс' /* Cyrillic */, 'X-Ünicode', '', 'x'.repeat(201)])('refuses %j', (name) => {
    expect(headerNameProblem(name)).not.toBeNull();
  });
});

describe('checkCustomHeaders', () => {
  it('returns the pairs in order', () => {
    expect(checkCustomHeaders('headers', [{ 'X-A': '1' }, { 'Reply-To': 'r@x.org' }])).toEqual([['X-A', '1'], ['Reply-To', 'r@x.org']]);
  });

  it('names the field, the entry and the header', () => {
    expect(() => checkCustomHeaders('headers', [{ 'X-A': '1' }, { bcc: 'spy@x.org' }])).toThrow('headers.1: "bcc" would add recipients to every message and cannot be given');
    expect(() => checkCustomHeaders('email_headers', [{ 'X-A': 'a\r\nBcc: spy@x.org' }])).toThrow('email_headers.0: the value of "X-A" must not contain line breaks');
  });
});

describe('sendableHeaders', () => {
  it('drops what the rule refuses, keeps the rest in order', () => {
    expect(sendableHeaders([['X-A', '1'], ['Bcc', 'spy@x.org'], ['cc', 'spy@x.org'], [' To', 'spy@x.org'], ['Reply-To', 'r@x.org'], ['X-B', 'a\nb']])).toEqual({
      kept: [['X-A', '1'], ['Reply-To', 'r@x.org']],
      dropped: ['Bcc', 'cc', ' To', 'X-B'],
    });
  });
});
