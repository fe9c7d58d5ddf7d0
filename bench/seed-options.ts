// What bench/seed.ts and the benchmarks that sign in to its data set share (importing seed.ts
// itself would run the seed).

/** The password of the seeded account (scale@bench.invalid), for the admin pages at scale. */
export const SCALE_PASSWORD = 'bench-scale-password';
