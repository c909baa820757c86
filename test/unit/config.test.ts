import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 9000, host: '0.0.0.0', databaseUrl: null, rootUrl: 'http://localhost:9000', adminUser: 'admin', adminPassword: null, apiOnly: false, importWriters: 2 });
    expect(c.smtp).toEqual({ host: 'localhost', port: 25, secure: false, user: null, password: null });
    expect(c.from).toEqual({ name: 'Mailroom', address: 'mailroom@localhost' });
  });

  it('reads MAILROOM_IMPORT_WRITERS', () => {
    expect(loadConfig({ MAILROOM_IMPORT_WRITERS: ' 4 ' }).importWriters).toBe(4);
    expect(loadConfig({ MAILROOM_IMPORT_WRITERS: '1' }).importWriters).toBe(1);
  });

  it('derives the root URL from PORT and strips a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).rootUrl).toBe('http://localhost:8080');
    expect(loadConfig({ MAILROOM_ROOT_URL: 'https://news.example.com/' }).rootUrl).toBe('https://news.example.com');
  });

  it('reads MAILROOM_TRUST_PROXY as a boolean, hop count or address list', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ MAILROOM_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ MAILROOM_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ MAILROOM_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('reads the HTTP timeouts as milliseconds or Go-style durations, with documented defaults', () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, uploadTimeoutMs: 3_600_000, keepAliveTimeoutMs: 72_000, connectionTimeoutMs: 300_000, maxConnections: null,
    });
    const c = loadConfig({
      MAILROOM_HTTP_HEADERS_TIMEOUT: '1500', MAILROOM_HTTP_REQUEST_TIMEOUT: ' 2m ', MAILROOM_HTTP_UPLOAD_TIMEOUT: '1h30m',
      MAILROOM_HTTP_KEEPALIVE_TIMEOUT: '250ms', MAILROOM_HTTP_CONNECTION_TIMEOUT: '10m', MAILROOM_HTTP_MAX_CONNECTIONS: '500',
    }).http;
    expect(c).toEqual({ headersTimeoutMs: 1500, requestTimeoutMs: 120_000, uploadTimeoutMs: 5_400_000, keepAliveTimeoutMs: 250, connectionTimeoutMs: 600_000, maxConnections: 500 });
    expect(loadConfig({ MAILROOM_HTTP_MAX_CONNECTIONS: '' }).http.maxConnections).toBeNull();
  });

  it('parses SMTP URLs with credentials', () => {
    expect(loadConfig({ MAILROOM_SMTP_URL: 'smtps://u%40x:p%3Aw@mail.example.com' }).smtp).toEqual({
      host: 'mail.example.com', port: 465, secure: true, user: 'u@x', password: 'p:w',
    });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['PORT', 'abc', /^PORT: must be a port number/],
    ['PORT', '70000', /^PORT: must be between/],
    ['DATABASE_URL', 'mysql://x', /^DATABASE_URL: must use postgres/],
    ['MAILROOM_ROOT_URL', 'ftp://x', /^MAILROOM_ROOT_URL: must use http/],
    ['MAILROOM_SMTP_URL', 'http://x', /^MAILROOM_SMTP_URL: must use smtp/],
    ['MAILROOM_FROM_EMAIL', 'nobody', /^MAILROOM_FROM_EMAIL:/],
    ['MAILROOM_ADMIN_PASSWORD', 'short', /^MAILROOM_ADMIN_PASSWORD: must be at least 8/],
    ['MAILROOM_ADMIN_USER', 'a b', /^MAILROOM_ADMIN_USER:/],
    ['MAILROOM_API_ONLY', 'maybe', /^MAILROOM_API_ONLY:/],
    ['LOG_LEVEL', 'loud', /^LOG_LEVEL:/],
    ['MAILROOM_TRUST_PROXY', 'the load balancer', /^MAILROOM_TRUST_PROXY:/],
    ['MAILROOM_IMPORT_WRITERS', '0', /^MAILROOM_IMPORT_WRITERS: must be a whole number from 1 to 16, got "0"/],
    ['MAILROOM_IMPORT_WRITERS', '17', /^MAILROOM_IMPORT_WRITERS: must be a whole number from 1 to 16/],
    ['MAILROOM_IMPORT_WRITERS', 'two', /^MAILROOM_IMPORT_WRITERS:/],
    ['MAILROOM_HTTP_REQUEST_TIMEOUT', 'a minute', /^MAILROOM_HTTP_REQUEST_TIMEOUT: must be a duration like 30s/],
    ['MAILROOM_HTTP_REQUEST_TIMEOUT', '0', /^MAILROOM_HTTP_REQUEST_TIMEOUT: must be between 100ms and 24h/],
    ['MAILROOM_HTTP_HEADERS_TIMEOUT', '-5s', /^MAILROOM_HTTP_HEADERS_TIMEOUT: must be a duration/],
    ['MAILROOM_HTTP_UPLOAD_TIMEOUT', '25h', /^MAILROOM_HTTP_UPLOAD_TIMEOUT: must be between/],
    ['MAILROOM_HTTP_MAX_CONNECTIONS', '0', /^MAILROOM_HTTP_MAX_CONNECTIONS: must be a whole number from 1/],
  ];
  for (const [name, value, message] of bad) {
    it(`refuses ${name}=${value} naming the variable`, () => expect(() => loadConfig({ [name]: value })).toThrow(message));
  }
});

import { LoginThrottle } from '../../src/http/security.js';

describe('LoginThrottle', () => {
  it('blocks after the limit within the window and forgets old failures', () => {
    let now = 0;
    const th = new LoginThrottle(3, 1000, () => now);
    th.fail('a');
    th.fail('a');
    expect(th.retryAfter('a')).toBe(0);
    th.fail('a');
    expect(th.retryAfter('a')).toBe(1000);
    now = 400;
    expect(th.retryAfter('a')).toBe(600);
    expect(th.retryAfter('b')).toBe(0);
    now = 1001;
    expect(th.retryAfter('a')).toBe(0);
  });
});

import { defaultMaxConnections } from '../../src/http/timeouts.js';

describe('defaultMaxConnections', () => {
  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}              1048576              files\n`;
  it('keeps 256 descriptors for the rest of the process, between 64 and 10,000 connections', () => {
    expect(defaultMaxConnections(limits('1024'))).toBe(768);
    expect(defaultMaxConnections(limits('1048576'))).toBe(10_000);
    expect(defaultMaxConnections(limits('200'))).toBe(64);
    expect(defaultMaxConnections(limits('unlimited'))).toBe(10_000);
    expect(defaultMaxConnections(null)).toBe(10_000);
  });
});
