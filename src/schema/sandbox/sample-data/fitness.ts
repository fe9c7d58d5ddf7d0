// "Sample Fitness Center" in London (GBP): four instructors, group classes on a weekly
// timetable (sessions are generated for the coming weeks in Europe/London local time, see
// seed-sample-company.ts), and personal training as an appointment paid when booking. Yoga
// and Reformer Pilates (offer mode) and Spin (auto mode) keep waitlists for their full
// sessions; the next reformer class is booked full with two waiting (sample-bookings.ts).
// Every class on the timetable lies inside its instructor's working hours.
import { hours, week, type SampleCompanyData } from './types.js';

export const FITNESS: SampleCompanyData = {
  employees: [
    {
      key: 'chloe',
      name: 'Chloe Davies',
      email: 'chloe.davies@gym.example.com',
      phone: '+442079460101',
      workingHours: week({
        monday: hours('17:30-21:00'),
        wednesday: hours('06:30-10:00'),
        saturday: hours('08:30-13:00'),
        sunday: hours('09:00-13:00'),
      }),
    },
    {
      key: 'tom',
      name: 'Tom Harris',
      email: 'tom.harris@gym.example.com',
      phone: '+442079460102',
      // Split shifts around the morning and evening peaks.
      workingHours: week({
        monday: hours('06:30-10:00', '16:00-20:00'),
        wednesday: hours('06:30-10:00', '16:00-20:00'),
        friday: hours('06:30-10:00', '16:00-20:00'),
        saturday: hours('09:00-12:30'),
      }),
    },
    {
      key: 'priya',
      name: 'Priya Patel',
      email: 'priya.patel@gym.example.com',
      phone: '+442079460103',
      workingHours: week({
        tuesday: hours('11:00-15:00', '17:30-20:30'),
        wednesday: hours('17:30-21:00'),
        thursday: hours('11:00-14:00', '17:30-20:30'),
        sunday: hours('09:00-12:00'),
      }),
    },
    {
      key: 'james',
      name: "James O'Connor",
      email: 'james.oconnor@gym.example.com',
      phone: '+442079460104',
      workingHours: week({
        tuesday: hours('06:30-10:00', '16:00-20:00'),
        thursday: hours('06:30-10:00', '16:00-20:00'),
        friday: hours('16:00-19:30'),
        saturday: hours('09:00-13:00'),
      }),
    },
  ],
  services: [
    {
      key: 'yoga',
      name: 'Vinyasa Yoga',
      description: 'Flowing yoga for all levels. Mats provided.',
      kind: 'class',
      durationMinutes: 60,
      price: 1400,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      employees: ['chloe', 'priya'],
      // A full session offers freed mats to its waitlist, first come first offered.
      waitlist: { enabled: true, maxSize: 10, offerMode: 'offer', offerMinutes: 60, cutoffMinutes: 120 },
    },
    {
      key: 'spin',
      name: 'Spin',
      description: 'High-energy indoor cycling to music.',
      kind: 'class',
      durationMinutes: 45,
      price: 1200,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      employees: ['tom'],
      // A full ride promotes the next on its waitlist at once.
      waitlist: { enabled: true, maxSize: 15, offerMode: 'auto', offerMinutes: 60, cutoffMinutes: 60 },
    },
    {
      key: 'hiit',
      name: 'HIIT Circuit',
      description: 'Thirty minutes of high-intensity interval training.',
      kind: 'class',
      durationMinutes: 30,
      price: 1000,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      employees: ['james', 'tom'],
    },
    {
      key: 'pilates',
      name: 'Mat Pilates',
      description: 'Core strength and mobility on the mat.',
      kind: 'class',
      durationMinutes: 50,
      price: 1500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      employees: ['priya'],
    },
    {
      key: 'reformer',
      name: 'Reformer Pilates',
      description: 'Small-group pilates on the reformer machines: four places.',
      kind: 'class',
      durationMinutes: 50,
      price: 2500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      requiresPayment: false,
      employees: ['priya'],
      // Four machines fill quickly: a freed one is offered to the next in line.
      waitlist: { enabled: true, maxSize: 6, offerMode: 'offer', offerMinutes: 60, cutoffMinutes: 120 },
    },
    {
      key: 'pt',
      name: 'Personal Training',
      description: 'One-to-one session with a coach. Paid when booking.',
      kind: 'appointment',
      durationMinutes: 60,
      price: 5500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 15,
      requiresPayment: true,
      employees: ['tom', 'james'],
    },
  ],
  timetable: [
    { weekday: 'monday', start: '07:00', service: 'spin', instructor: 'tom', capacity: 20 },
    { weekday: 'monday', start: '18:00', service: 'yoga', instructor: 'chloe', capacity: 18 },
    { weekday: 'monday', start: '19:00', service: 'hiit', instructor: 'tom', capacity: 16 },
    { weekday: 'tuesday', start: '07:00', service: 'hiit', instructor: 'james', capacity: 16 },
    { weekday: 'tuesday', start: '12:15', service: 'pilates', instructor: 'priya', capacity: 12 },
    { weekday: 'tuesday', start: '18:30', service: 'yoga', instructor: 'priya', capacity: 18 },
    { weekday: 'wednesday', start: '07:00', service: 'yoga', instructor: 'chloe', capacity: 18 },
    { weekday: 'wednesday', start: '07:00', service: 'spin', instructor: 'tom', capacity: 20 },
    { weekday: 'wednesday', start: '18:30', service: 'pilates', instructor: 'priya', capacity: 12 },
    { weekday: 'thursday', start: '07:00', service: 'hiit', instructor: 'james', capacity: 16 },
    { weekday: 'thursday', start: '12:00', service: 'reformer', instructor: 'priya', capacity: 4 },
    { weekday: 'thursday', start: '18:00', service: 'yoga', instructor: 'priya', capacity: 18 },
    { weekday: 'thursday', start: '18:30', service: 'hiit', instructor: 'james', capacity: 16 },
    { weekday: 'friday', start: '07:00', service: 'spin', instructor: 'tom', capacity: 20 },
    { weekday: 'friday', start: '17:30', service: 'hiit', instructor: 'james', capacity: 16 },
    { weekday: 'saturday', start: '09:30', service: 'spin', instructor: 'tom', capacity: 20 },
    { weekday: 'saturday', start: '10:00', service: 'yoga', instructor: 'chloe', capacity: 18 },
    { weekday: 'saturday', start: '11:00', service: 'hiit', instructor: 'james', capacity: 16 },
    { weekday: 'sunday', start: '10:00', service: 'yoga', instructor: 'chloe', capacity: 18 },
    { weekday: 'sunday', start: '10:00', service: 'pilates', instructor: 'priya', capacity: 12 },
  ],
  // An evening class kept by a class schedule: its sessions are generated 12 weeks ahead and
  // the workers extend them (docs/sandbox.md).
  schedules: [
    { service: 'pilates', instructor: 'priya', start: '20:00', rrule: 'FREQ=WEEKLY;BYDAY=MO,WE', capacity: 12 },
  ],
  customers: [
    { name: 'Oliver Smith', email: 'oliver.smith@example.com', phone: '+447912345601' },
    {
      name: 'Amelia Jones',
      email: 'amelia.jones@example.com',
      phone: '+447912345602',
      notes: 'Recovering from a knee injury: low-impact options.',
    },
    { name: 'Harry Brown', email: 'harry.brown@example.com', phone: '+447912345603' },
    { name: 'Isla Taylor', email: 'isla.taylor@example.com', phone: '+447912345604' },
    { name: 'George Wilson', email: 'george.wilson@example.com', phone: '+447912345605' },
    { name: 'Ava Evans', email: 'ava.evans@example.com', phone: '+447912345606' },
  ],
  // The next reformer class two days or more ahead: its four places taken, two waiting.
  bookings: {
    fullClass: {
      service: 'reformer',
      customers: [
        'oliver.smith@example.com',
        'amelia.jones@example.com',
        'harry.brown@example.com',
        'isla.taylor@example.com',
        'george.wilson@example.com',
        'ava.evans@example.com',
      ],
      inDays: 2,
    },
  },
};
