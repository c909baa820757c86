/**
 * The SMTP sink of bench/send, in its own process so that receiving does not compete with the sender
 * being measured for the same event loop. Accepts everything, keeps nothing but a count of messages
 * and bytes; answers `count` over IPC and prints its port on start.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let count = 0;
let bytes = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    stream.on('end', () => {
      count += 1;
      callback();
    });
  },
});
server.on('error', () => undefined);
server.listen(0, '127.0.0.1', () => {
  const port = (server.server.address() as AddressInfo).port;
  if (process.send) process.send({ port });
  else console.log(`smtp sink on 127.0.0.1:${port}`);
});
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'count') process.send?.({ count, bytes });
  if (m.cmd === 'reset') {
    count = 0;
    bytes = 0;
    process.send?.({ count, bytes });
  }
  if (m.cmd === 'stop') server.close(() => process.exit(0));
});
