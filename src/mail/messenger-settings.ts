/**
 * Settings of HTTP postback messengers (listmonk reference §12, §18.2): the `messengers` list (passwords
 * masked on read, an empty or masked password on write keeps the stored one while `root_url` and
 * `username` are unchanged: issue 14 finding 1) and the switch that lets
 * them reach private addresses. Builds the messengers from the settings.
 */
import { randomUUID } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { defineSetting, duplicateUuid, passwordBlocks, type SettingDef } from '../settings/definitions.js';
import { DURATION_PATTERN, parseDuration } from '../util/duration.js';
import type { Messenger } from './messenger.js';
import { PostbackMessenger } from './postback.js';

/** One postback messenger block, listmonk's shape. */
export const PostbackBlock = Type.Object({
  uuid: Type.String({ maxLength: 64 }),
  enabled: Type.Boolean(),
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9-]+$' }),
  root_url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://[^\\s]+$' }),
  username: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  max_conns: Type.Integer({ minimum: 1, maximum: 1000 }),
  timeout: Type.String({ pattern: DURATION_PATTERN, maxLength: 20 }),
  max_msg_retries: Type.Integer({ minimum: 0, maximum: 100 }),
});
export type PostbackBlock = Static<typeof PostbackBlock>;

function checkBlocks(blocks: PostbackBlock[]): string | null {
  const names = blocks.map((b) => b.name);
  if (new Set(names).size !== names.length) return 'messenger names must be unique';
  const bad = names.find((n) => n === 'email' || n.startsWith('email-'));
  if (bad !== undefined) return `messenger name "${bad}" is reserved for SMTP (email, email-<name>)`;
  // Blocks are matched by uuid to keep their passwords, so two blocks must not share one.
  const uuid = duplicateUuid(blocks);
  if (uuid !== null) return `messenger uuids must be unique ("${uuid}" is used more than once)`;
  for (const b of blocks) {
    try {
      new URL(b.root_url);
    } catch {
      return `root_url "${b.root_url}" is not a valid URL`;
    }
    if ((parseDuration(b.timeout) ?? 0) < 100) return `timeout of "${b.name}" must be at least 100ms`;
  }
  return null;
}

/** Messenger setting declarations. */
export function messengerSettings() {
  return {
    messengers: defineSetting({
      key: 'messengers',
      schema: Type.Array(PostbackBlock, { maxItems: 50 }),
      default: [] as PostbackBlock[],
      description: 'HTTP postback messengers: each enabled block is a messenger campaigns can name.',
      ...passwordBlocks<PostbackBlock>({ destination: ['root_url', 'username'] }),
      check: checkBlocks,
    }),
    allowPrivateMessengerUrls: defineSetting({
      key: 'security.allow_private_messenger_urls',
      schema: Type.Boolean(),
      default: false,
      description: 'Let postback messengers reach loopback, private and link-local addresses (off: refused after DNS resolution).',
    }),
  } satisfies Record<string, SettingDef>;
}

/** A new block with listmonk's sample values (used by docs and tests). */
export function newPostbackBlock(name: string, rootUrl: string): PostbackBlock {
  return { uuid: randomUUID(), enabled: true, name, root_url: rootUrl, username: '', password: '', max_conns: 5, timeout: '5s', max_msg_retries: 2 };
}

/** Builds one messenger per enabled block. */
export function buildPostbackMessengers(blocks: PostbackBlock[], allowPrivate: () => boolean): Messenger[] {
  return blocks
    .filter((b) => b.enabled)
    .map(
      (b) =>
        new PostbackMessenger(b.name, {
          url: b.root_url,
          username: b.username,
          password: b.password,
          timeoutMs: parseDuration(b.timeout) ?? 5000,
          maxConns: b.max_conns,
          maxRetries: b.max_msg_retries,
          allowPrivate,
        }),
    );
}
