// Imports every type file and builds the schema (Pothos app-layout).
import { builder } from './builder.js';
import './availability.js';
import './booking.js';
import './class-session.js';
import './company.js';
import './webhook-endpoint.js';
import './payment.js';
import './email.js';
import './customer.js';
import './employee.js';
import './event.js';
import './service.js';

export const schema = builder.toSchema({ sortSchema: true });
