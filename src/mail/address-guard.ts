/**
 * Keeps HTTP messengers from reaching the machine itself or the private network (SSRF): postback URLs
 * must resolve to public unicast addresses unless the operator allows private ones
 * (`security.allow_private_messenger_urls`). The check runs inside the socket's DNS lookup, on the very
 * addresses the connection then uses, so a name that resolves to a public address when checked and to
 * 127.0.0.1 a moment later (DNS rebinding) cannot slip through; IP-literal hosts are checked before
 * connecting because Node skips the lookup for them.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : range;
}

/** Error thrown for a refused address; `code` lets callers recognise it. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';

  constructor(host: string, address: string, range: string) {
    super(`${host} resolves to ${address} (${range}); private, loopback and link-local addresses are refused unless security.allow_private_messenger_urls is on`);
    this.name = 'BlockedAddressError';
  }
}

/** Throws BlockedAddressError when `host` is an IP literal in a refused range (and private ones are not allowed). */
export function checkLiteralHost(host: string, allowPrivate: () => boolean): void {
  const bare = host.replace(/^\[(.*)\]$/u, '$1');
  if (allowPrivate() || !ipaddr.isValid(bare)) return;
  const range = refusedRange(bare);
  if (range !== null) throw new BlockedAddressError(host, bare, range);
}

/** A `lookup` for http(s) agents that refuses non-public addresses (unless allowed) after resolution. */
export function guardedLookup(allowPrivate: () => boolean): LookupFunction {
  return ((hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate()) {
        for (const a of list) {
          const range = refusedRange(a.address);
          if (range !== null) return callback(new BlockedAddressError(hostname, a.address, range), []);
        }
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0];
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
