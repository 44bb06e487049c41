import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** A loopback webhook receiver that answers every request with `status`; set it to change the answer. */
export interface StatusReceiver {
  status: number;
  /** Its URL, once beforeAll has started it. */
  readonly url: string;
}

/** Starts a StatusReceiver for the test file (beforeAll) and closes it after (afterAll). */
export function useStatusReceiver(initial: number): StatusReceiver {
  let server: http.Server | undefined;
  let url = '';
  const receiver = {
    status: initial,
    get url() {
      return url;
    },
  };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(receiver.status).end());
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });
  return receiver;
}
