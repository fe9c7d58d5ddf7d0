// The regulars of each sample company (docs/sandbox.md, Sample companies): the people the sample
// week is booked for (../sample-builder.ts), made through the customers use case as a client's
// POST /customers would make them. With the template's own customers they come to about twenty
// per company, named as the company's town would name them.
import type { SampleTemplate } from '../samples.js';
import type { SampleCustomer } from './types.js';

const people = (domainPhone: string, names: string[]): SampleCustomer[] =>
  names.map((name, i) => ({
    name,
    email: `${name
      .toLowerCase()
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ß/g, 'ss')
      .replace(/[^a-z]+/g, '.')
      .replace(/^\.|\.$/g, '')}@example.com`,
    phone: `${domainPhone}${20 + i}`,
  }));

export const SAMPLE_REGULARS: Record<SampleTemplate, readonly SampleCustomer[]> = {
  hair_salon: people('+49176123457', [
    'Hannah Schulz',
    'Felix Neumann',
    'Emma Richter',
    'Leon Zimmermann',
    'Marie Krüger',
    'Paul Hartmann',
    'Lina Braun',
    'Maximilian Lange',
    'Clara Schmitt',
    'Noah Werner',
    'Johanna Krause',
    'Elias Meier',
    'Charlotte Lehmann',
    'Ben Schmid',
    'Greta Köhler',
    'Finn Maier',
    'Ida Walter',
  ]),
  clinic: people('+121255501', [
    'Jennifer Brown',
    'Michael Davis',
    'Linda Martinez',
    'Christopher Lee',
    'Patricia Wilson',
    'Daniel Anderson',
    'Elizabeth Thomas',
    'Matthew Jackson',
    'Susan White',
    'Anthony Harris',
    'Jessica Clark',
    'Kevin Lewis',
    'Sarah Robinson',
    'Brian Walker',
    'Nancy Young',
    'Jason Allen',
  ]),
  fitness: people('+4479123457', [
    'Jack Roberts',
    'Sophie Walker',
    'Charlie Wright',
    'Emily Thompson',
    'Thomas White',
    'Grace Hughes',
    'Alfie Edwards',
    'Poppy Green',
    'Oscar Hall',
    'Freya Wood',
    'Leo Clarke',
    'Evie Jackson',
    'Henry Turner',
    'Millie Hill',
    'Archie Moore',
    'Lily Cooper',
  ]),
};
