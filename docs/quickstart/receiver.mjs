// The Quickstart's webhook receiver (docs/quickstart.md): a plain Node HTTP server on
// http://localhost:4242/hooks that checks each delivery's signature with the SDK's
// webhooks.verify before it trusts a byte of it, and prints the event.
//
//   WEBHOOK_SECRET=whsec_... node docs/quickstart/receiver.mjs
//
// WEBHOOK_SECRET is the signing secret `svc listen` printed (or, in production, the secret of
// your webhook endpoint). PORT picks another port (0: any free one).
import { createServer } from 'node:http';
import { webhooks, WebhookVerificationError } from '../../sdk/dist/index.js';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the signing secret that `svc listen` printed (whsec_...).');
  process.exit(1);
}

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/hooks') return void res.writeHead(404).end();
  // The raw bytes: the signature covers the body exactly as it was sent.
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks);
  try {
    const event = await webhooks.verify(raw, req.headers, secret);
    console.log(`verified ${event.event} ${JSON.stringify(event.data)}`);
    res.writeHead(200).end('ok');
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    console.log(`refused a delivery: ${err.message}`);
    res.writeHead(400).end();
  }
});

server.listen(Number(process.env.PORT ?? 4242), 'localhost', () => {
  console.log(`Receiving webhooks on http://localhost:${server.address().port}/hooks`);
});
