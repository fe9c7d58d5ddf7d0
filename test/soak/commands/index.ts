// The soak's commands as fast-check arbitraries, and how often each is drawn.
import fc from 'fast-check';
import { dayArb, rulesArb, serviceArb, timeArb, weekArb } from '../specs.js';
import { Book, Cancel, Race, Reschedule } from './bookings.js';
import { Hostile, HOSTILE } from './hostile.js';
import { Pages } from './pages.js';
import { AddService, ChangeService, Clock, CompanyRules, Open } from './services.js';
import {
  AddClosure,
  AddEmployee,
  AddTimeOff,
  Deactivate,
  DeleteClosure,
  DeleteOverride,
  DeleteTimeOff,
  PutOverride,
  SetHours,
} from './staff.js';
import type { Model, Real } from './step.js';

export { emptyModel, SLOT_MODES, SLOTS } from './step.js';

// ---------------------------------------------------------------------------------------------
// The arbitraries

// Most steps go to one live and one test company, so their worlds grow rich; the other two see
// fewer (and serve, with the canaries, as the companies a step leaves alone).
const slot = fc.constantFrom(0, 0, 0, 0, 2, 2, 2, 2, 1, 3);
const probe = fc.nat();
const pick = fc.nat(40);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });

export const COMMANDS = {
  addEmployee: fc
    .tuple(slot, probe, weekArb, fc.nat(31), fc.option(fc.nat(3), { nil: null, freq: 5 }))
    .map((a) => new AddEmployee(...a)),
  setHours: fc.tuple(slot, probe, pick, weekArb).map((a) => new SetHours(...a)),
  deactivate: fc.tuple(slot, probe, pick).map((a) => new Deactivate(...a)),
  // Mostly the days bookings are made on (slots of the next five days), where an override can clash.
  putOverride: fc
    .tuple(
      slot,
      probe,
      pick,
      fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 4 }) }, fc.integer({ min: 5, max: 9 })),
      dayArb,
    )
    .map((a) => new PutOverride(...a)),
  deleteOverride: fc.tuple(slot, probe, pick).map((a) => new DeleteOverride(...a)),
  addTimeOff: fc
    .tuple(slot, probe, pick, timeArb, fc.constantFrom(15, 45, 60, 240, 1440, 2880))
    .map((a) => new AddTimeOff(...a)),
  deleteTimeOff: fc.tuple(slot, probe, pick).map((a) => new DeleteTimeOff(...a)),
  addClosure: fc
    .tuple(slot, probe, timeArb, fc.constantFrom(30, 60, 180, 1440, 4320), maybe(fc.nat(31)), fc.boolean())
    .map((a) => new AddClosure(...a)),
  deleteClosure: fc.tuple(slot, probe, pick).map((a) => new DeleteClosure(...a)),
  addService: fc.tuple(slot, probe, serviceArb).map((a) => new AddService(...a)),
  open: fc.tuple(slot, probe, weekArb, serviceArb).map((a) => new Open(...a)),
  changeService: fc
    .tuple(
      slot,
      probe,
      pick,
      fc.oneof(
        fc.record({ k: fc.constant('rules' as const), rules: rulesArb }),
        serviceArb.map((s) => ({
          k: 'timing' as const,
          durationMinutes: s.durationMinutes,
          bufferBeforeMinutes: s.bufferBeforeMinutes,
          bufferAfterMinutes: s.bufferAfterMinutes,
        })),
        fc.record({ k: fc.constant('staff' as const), staff: fc.nat(31) }),
        fc.constant({ k: 'deactivate' as const }),
      ),
    )
    .map((a) => new ChangeService(...a)),
  companyRules: fc.tuple(slot, probe, rulesArb).map((a) => new CompanyRules(...a)),
  book: fc
    .tuple(slot, probe, pick, timeArb, maybe(pick), fc.boolean(), maybe(pick), fc.boolean())
    .map((a) => new Book(...a)),
  race: fc
    .tuple(slot, probe, pick, timeArb, fc.integer({ min: 2, max: 5 }), maybe(pick), fc.boolean())
    .map((a) => new Race(...a)),
  reschedule: fc.tuple(slot, probe, pick, timeArb, maybe(pick), fc.boolean()).map((a) => new Reschedule(...a)),
  cancel: fc.tuple(slot, probe, pick).map((a) => new Cancel(...a)),
  clock: fc
    .tuple(
      slot,
      probe,
      fc.oneof(
        fc.record({
          k: fc.constant('attach' as const),
          dst: maybe(fc.nat(3)),
          days: fc.integer({ min: -10, max: 10 }),
        }),
        fc.record({
          k: fc.constant('advance' as const),
          minutes: fc.oneof(fc.constantFrom(1, 15, 60, 360, 1440, 4320, 20160), fc.constantFrom(-5, 90 * 1440 + 1)),
        }),
        fc.constant({ k: 'detach' as const }),
      ),
    )
    .map((a) => new Clock(...a)),
  hostile: fc.tuple(slot, probe, fc.constantFrom(...HOSTILE), fc.nat(10), fc.boolean()).map((a) => new Hostile(...a)),
  pages: fc.tuple(slot, probe, fc.nat(10), fc.nat(4), fc.integer({ min: 1, max: 3 })).map((a) => new Pages(...a)),
};
export type CommandName = keyof typeof COMMANDS;

/** How often each command is drawn: worlds are built up early and booked into most. */
const WEIGHTS: Record<CommandName, number> = {
  addEmployee: 3,
  setHours: 2,
  deactivate: 1,
  putOverride: 2,
  deleteOverride: 1,
  addTimeOff: 2,
  deleteTimeOff: 1,
  addClosure: 2,
  deleteClosure: 1,
  addService: 3,
  open: 3,
  changeService: 2,
  companyRules: 2,
  book: 10,
  race: 2,
  reschedule: 3,
  cancel: 2,
  clock: 2,
  hostile: 3,
  pages: 5,
};

/** The commands arbitrary, leaving out any command named in `without`. */
export function commandsArb(opts: { maxCommands: number; replayPath?: string; without?: string[] }) {
  const names = (Object.keys(COMMANDS) as CommandName[]).filter((n) => !opts.without?.includes(n));
  return fc.commands(
    [
      fc.oneof(
        ...names.map((n) => ({
          weight: WEIGHTS[n],
          arbitrary: COMMANDS[n] as fc.Arbitrary<fc.AsyncCommand<Model, Real, false>>,
        })),
      ),
    ],
    { maxCommands: opts.maxCommands, size: 'max', ...(opts.replayPath ? { replayPath: opts.replayPath } : {}) },
  );
}
