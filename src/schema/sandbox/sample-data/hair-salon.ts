// "Sample Hair Salon" in Berlin (EUR): three stylists on a Tuesday-to-Saturday week with a
// lunch break, the usual menu of a German salon, and prices in cents. Colour work is paid
// up front (requiresPayment), as many salons ask for long appointments.
import { hours, week, type SampleCompanyData } from './types.js';

export const HAIR_SALON: SampleCompanyData = {
  employees: [
    {
      key: 'anna',
      name: 'Anna Schmidt',
      email: 'anna.schmidt@salon.example.com',
      phone: '+4915123456701',
      // Senior stylist: long days with a lunch break, short Saturday.
      workingHours: week({
        tuesday: hours('09:00-13:00', '14:00-18:00'),
        wednesday: hours('09:00-13:00', '14:00-18:00'),
        thursday: hours('10:00-14:00', '15:00-20:00'),
        friday: hours('09:00-13:00', '14:00-18:00'),
        saturday: hours('09:00-15:00'),
      }),
    },
    {
      key: 'lukas',
      name: 'Lukas Weber',
      email: 'lukas.weber@salon.example.com',
      phone: '+4915123456702',
      // Stylist and barber: late shifts for after-work clients.
      workingHours: week({
        tuesday: hours('11:00-15:00', '15:30-20:00'),
        wednesday: hours('11:00-15:00', '15:30-20:00'),
        thursday: hours('11:00-15:00', '15:30-20:00'),
        friday: hours('11:00-15:00', '15:30-19:00'),
        saturday: hours('09:00-16:00'),
      }),
    },
    {
      key: 'mia',
      name: 'Mia Fischer',
      email: 'mia.fischer@salon.example.com',
      phone: '+4915123456703',
      // Colourist, part time.
      workingHours: week({
        wednesday: hours('09:00-13:00', '13:45-18:00'),
        thursday: hours('09:00-13:00', '13:45-18:00'),
        friday: hours('09:00-13:00', '13:45-18:00'),
        saturday: hours('09:00-14:00'),
      }),
    },
  ],
  services: [
    {
      key: 'womens-cut',
      name: "Women's Cut & Style",
      description: 'Consultation, wash, precision cut and blow-dry finish.',
      kind: 'appointment',
      durationMinutes: 60,
      price: 5800,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 10,
      requiresPayment: false,
      employees: ['anna', 'lukas'],
    },
    {
      key: 'mens-cut',
      name: "Men's Cut",
      description: 'Wash, cut and style.',
      kind: 'appointment',
      durationMinutes: 30,
      price: 3200,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      requiresPayment: false,
      employees: ['anna', 'lukas'],
    },
    {
      key: 'blow-dry',
      name: 'Wash & Blow-Dry',
      description: 'Wash and blow-dry styling, straight or with volume.',
      kind: 'appointment',
      durationMinutes: 30,
      price: 2900,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      requiresPayment: false,
      employees: ['anna', 'lukas', 'mia'],
    },
    {
      key: 'colour',
      name: 'Full Colour',
      description: 'Permanent root-to-tip colour with gloss treatment and blow-dry. Paid when booking.',
      kind: 'appointment',
      durationMinutes: 120,
      price: 9500,
      bufferBeforeMinutes: 10,
      bufferAfterMinutes: 15,
      requiresPayment: true,
      employees: ['mia', 'anna'],
    },
    {
      key: 'balayage',
      name: 'Balayage',
      description: 'Hand-painted highlights with toner, cut and finish. Paid when booking.',
      kind: 'appointment',
      durationMinutes: 180,
      price: 18900,
      bufferBeforeMinutes: 10,
      bufferAfterMinutes: 15,
      requiresPayment: true,
      employees: ['mia'],
    },
    {
      key: 'beard',
      name: 'Beard Trim',
      description: 'Beard shaping with hot towel.',
      kind: 'appointment',
      durationMinutes: 20,
      price: 1800,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      requiresPayment: false,
      employees: ['lukas'],
    },
  ],
  timetable: [],
  customers: [
    {
      name: 'Sophie Becker',
      email: 'sophie.becker@example.com',
      phone: '+4917612345601',
      notes: 'Prefers appointments with Anna.',
    },
    { name: 'Jonas Hoffmann', email: 'jonas.hoffmann@example.com', phone: '+4917612345602' },
    {
      name: 'Lea Wagner',
      email: 'lea.wagner@example.com',
      phone: '+4917612345603',
      notes: 'Patch test done for colour.',
    },
  ],
  // A men's cut and a beard trim back to back with Lukas. Not a cut and a colour: colour work
  // is paid when booking, so its item would wait pending on a payment hold that lapses after 15
  // minutes, and the sample would show an expired visit.
  bookings: {
    visit: { customer: 'jonas.hoffmann@example.com', employee: 'lukas', services: ['mens-cut', 'beard'], inDays: 3 },
  },
};
