// The contents of each sample template (docs/sandbox.md); the company
// profiles (name, zone, currency) are in ../samples.ts.
import type { SampleTemplate } from '../samples.js';
import { CLINIC } from './clinic.js';
import { FITNESS } from './fitness.js';
import { HAIR_SALON } from './hair-salon.js';
import type { SampleCompanyData } from './types.js';

export const SAMPLE_DATA: Record<SampleTemplate, SampleCompanyData> = {
  hair_salon: HAIR_SALON,
  clinic: CLINIC,
  fitness: FITNESS,
};

export { datedSessions, SAMPLE_SCHEDULE_DAYS } from './timetable.js';
export * from './types.js';
