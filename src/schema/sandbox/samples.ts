// The sandbox's sample companies (docs/sandbox.md). The booking-domain
// templates fill in their staff, services and classes.
export const SAMPLE_TEMPLATES = {
  hair_salon: {
    name: 'Sample Hair Salon',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    email: 'salon@example.com',
    phone: '+493012345678',
    address: 'Torstraße 1, 10119 Berlin, Germany',
  },
  clinic: {
    name: 'Sample Medical Clinic',
    timezone: 'America/New_York',
    currency: 'USD',
    email: 'clinic@example.com',
    phone: '+12125550123',
    address: '350 5th Ave, New York, NY 10118, USA',
  },
  fitness: {
    name: 'Sample Fitness Center',
    timezone: 'Europe/London',
    currency: 'GBP',
    email: 'gym@example.com',
    phone: '+442079460000',
    address: '1 Canada Square, London E14 5AB, UK',
  },
} as const;

export type SampleTemplate = keyof typeof SAMPLE_TEMPLATES;
export const SAMPLE_ORDER: SampleTemplate[] = ['hair_salon', 'clinic', 'fitness'];
