import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  deliveryId: string;
  /** X-Replay-Of: the delivery an edited replay replaces. */
  replayOf?: string;
  /** The status this receiver answered. */
  answered: number;
  body: string;
}

/**
 * A webhook endpoint on loopback whose answer the test sets (`answer = 400`, then
 * `200`), recording every delivery. The worker may reach it because the run's
 * WEBHOOK_ALLOW_HOSTS lists 127.0.0.1.
 */
export class WebhookReceiver {
  answer = 200;
  readonly received: ReceivedWebhook[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(answer = 200): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = receiver!.answer;
        receiver!.received.push({
          deliveryId: String(req.headers['x-delivery-id'] ?? ''),
          replayOf: req.headers['x-replay-of'] as string | undefined,
          answered: status,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status < 300 }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hook`);
    receiver.answer = answer;
    return receiver;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
