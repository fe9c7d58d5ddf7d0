// "Sample Medical Clinic" in New York (USD): three physicians, a nurse practitioner and a
// registered nurse on weekday schedules with a lunch hour, one Saturday-morning clinic, and
// self-pay prices in cents. New-patient consultations are prepaid (requiresPayment). Three exam
// rooms: a visit with a physician or the nurse practitioner takes any free one; blood draws
// need the one phlebotomy chair (docs/api.md, Rooms and equipment). Two sites: the Midtown
// clinic, and a Brooklyn satellite open on Saturday mornings with one exam room, where Dr. Okafor
// and Emily Chen work then (docs/api.md, Locations; intervals naming no site are Midtown's).
import { hours, week, type SampleCompanyData } from './types.js';

/** Intervals at a site of the template (its key, turned into the location's id when seeded). */
const at = (location: string, ranges: ReturnType<typeof hours>) => ranges.map((r) => ({ ...r, locationId: location }));

const weekdays = (...ranges: string[]) => ({
  monday: hours(...ranges),
  tuesday: hours(...ranges),
  wednesday: hours(...ranges),
  thursday: hours(...ranges),
  friday: hours(...ranges),
});

export const CLINIC: SampleCompanyData = {
  employees: [
    {
      key: 'mitchell',
      name: 'Dr. Sarah Mitchell',
      email: 'sarah.mitchell@clinic.example.com',
      phone: '+12125550141',
      workingHours: week(weekdays('08:00-12:00', '13:00-17:00')),
    },
    {
      key: 'okafor',
      name: 'Dr. James Okafor',
      email: 'james.okafor@clinic.example.com',
      phone: '+12125550142',
      // Late clinic on Tuesday and Thursday, Saturday morning instead of Monday.
      workingHours: week({
        tuesday: hours('10:00-13:00', '14:00-19:00'),
        wednesday: hours('08:00-12:00', '13:00-17:00'),
        thursday: hours('10:00-13:00', '14:00-19:00'),
        friday: hours('08:00-12:00', '13:00-16:00'),
        saturday: at('brooklyn', hours('09:00-13:00')),
      }),
    },
    {
      key: 'raman',
      name: 'Dr. Priya Raman',
      email: 'priya.raman@clinic.example.com',
      phone: '+12125550143',
      // Pediatrics, four days a week.
      workingHours: week({
        monday: hours('09:00-12:30', '13:30-17:00'),
        tuesday: hours('09:00-12:30', '13:30-17:00'),
        thursday: hours('09:00-12:30', '13:30-17:00'),
        friday: hours('09:00-12:30', '13:30-17:00'),
      }),
    },
    {
      key: 'torres',
      name: 'Michael Torres, NP',
      email: 'michael.torres@clinic.example.com',
      phone: '+12125550144',
      workingHours: week(weekdays('07:30-11:30', '12:30-16:00')),
    },
    {
      key: 'chen',
      name: 'Emily Chen, RN',
      email: 'emily.chen@clinic.example.com',
      phone: '+12125550145',
      workingHours: week({ ...weekdays('08:00-12:00', '12:30-16:30'), saturday: at('brooklyn', hours('09:00-13:00')) }),
    },
  ],
  services: [
    {
      key: 'new-patient',
      name: 'New Patient Consultation',
      description: 'First visit: history, examination and care plan. Prepaid when booking.',
      kind: 'appointment',
      durationMinutes: 45,
      price: 19500,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      requiresPayment: true,
      employees: ['mitchell', 'okafor', 'raman'],
      resourceKinds: ['room'],
    },
    {
      key: 'follow-up',
      name: 'Follow-up Visit',
      description: 'Review of results or an ongoing treatment.',
      kind: 'appointment',
      durationMinutes: 20,
      price: 9500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      requiresPayment: false,
      employees: ['mitchell', 'okafor', 'raman', 'torres'],
      resourceKinds: ['room'],
    },
    {
      key: 'physical',
      name: 'Annual Check-up',
      description: 'Preventive physical exam with vitals, screening and lab orders.',
      kind: 'appointment',
      durationMinutes: 30,
      price: 15000,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      requiresPayment: false,
      employees: ['mitchell', 'okafor', 'torres'],
      resourceKinds: ['room'],
    },
    {
      key: 'well-child',
      name: 'Well-Child Visit',
      description: 'Growth, development and immunization review for children and teens.',
      kind: 'appointment',
      durationMinutes: 30,
      price: 13000,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 10,
      requiresPayment: false,
      employees: ['raman'],
      resourceKinds: ['room'],
    },
    {
      key: 'flu-shot',
      name: 'Flu Vaccination',
      description: 'Seasonal influenza vaccine, with 15 minutes of observation afterwards.',
      kind: 'appointment',
      durationMinutes: 15,
      price: 4500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 15,
      requiresPayment: false,
      employees: ['chen', 'torres'],
    },
    {
      key: 'blood-draw',
      name: 'Blood Draw',
      description: 'Venipuncture for laboratory tests ordered by your clinician.',
      kind: 'appointment',
      durationMinutes: 15,
      price: 3500,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      requiresPayment: false,
      employees: ['chen'],
      resources: ['chair'],
    },
  ],
  timetable: [],
  locations: [
    {
      key: 'midtown',
      name: 'Midtown Clinic',
      address: '250 W 57th St, New York, NY 10107',
      timeZone: 'America/New_York',
      phone: '+12125550140',
    },
    {
      key: 'brooklyn',
      name: 'Brooklyn Satellite',
      address: '85 Flatbush Ave, Brooklyn, NY 11217',
      timeZone: 'America/New_York',
      phone: '+17185550140',
    },
  ],
  resources: [
    { key: 'exam-1', name: 'Exam Room 1', kind: 'room', location: 'midtown' },
    { key: 'exam-2', name: 'Exam Room 2', kind: 'room', location: 'midtown' },
    { key: 'exam-3', name: 'Brooklyn Exam Room', kind: 'room', location: 'brooklyn' },
    { key: 'chair', name: 'Phlebotomy Chair', kind: 'equipment', location: 'midtown' },
  ],
  customers: [
    { name: 'Robert Johnson', email: 'robert.johnson@example.com', phone: '+12125550171' },
    { name: 'Maria Garcia', email: 'maria.garcia@example.com', phone: '+13475550172', notes: 'Penicillin allergy.' },
    { name: 'David Kim', email: 'david.kim@example.com', phone: '+16465550173' },
    {
      name: 'Ashley Williams',
      email: 'ashley.williams@example.com',
      phone: '+19175550174',
      notes: 'Parent of two pediatric patients.',
    },
  ],
  // Six weekly follow-ups with Dr. Mitchell at the Midtown clinic, each in any free exam room there.
  bookings: {
    series: {
      customer: 'robert.johnson@example.com',
      employee: 'mitchell',
      service: 'follow-up',
      location: 'midtown',
      rrule: 'FREQ=WEEKLY;COUNT=6',
      inDays: 3,
    },
  },
};
