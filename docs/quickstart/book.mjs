// The Quickstart's first booking (docs/quickstart.md), made through the SDK: the sandbox
// company of your key, its first active appointment service, the first free slot in the next
// week, and a booking for a new customer in it.
//
//   SVC_API_KEY=svc_sk_test_... node docs/quickstart/book.mjs
//
// API_URL names another server (default http://localhost:3000, where `npm start` listens).
import { ApiError, Client } from '../../sdk/dist/index.js';

const client = new Client({
  baseUrl: process.env.API_URL ?? 'http://localhost:3000',
  apiKey: process.env.SVC_API_KEY,
});

try {
  const me = await client.me.get();
  console.log(`Company: ${me.name} (${me.mode} mode, ${me.timezone})`);

  const services = await client.services.list({ active: true, kind: 'appointment' }).toArray();
  const service = services[0];
  if (!service) throw new Error('This company has no active appointment service: create one first.');

  const from = new Date();
  const to = new Date(from.getTime() + 7 * 24 * 3600 * 1000);
  const { slots } = await client.availability.get({
    serviceId: service._id,
    from: from.toISOString(),
    to: to.toISOString(),
  });
  const slot = slots?.[0];
  if (!slot) throw new Error(`${service.name} has no free slot in the next 7 days.`);

  const booking = await client.bookings.create({
    serviceId: service._id,
    employeeId: slot.employeeIds[0],
    startTime: slot.startTime,
    customer: { name: 'Quinn Quickstart', email: `quinn+${Date.now()}@example.com` },
  });
  console.log(`Booked ${service.name} at ${booking.startTime}: booking ${booking._id} (${booking.status})`);
} catch (err) {
  // The API's own code and request id: quote the request id when asking for help.
  if (err instanceof ApiError) console.error(`${err.code}: ${err.message} (request ${err.requestId})`);
  else console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
