// Staff: employees, their working hours and time off.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (employee.ts) is registered by src/schema/index.ts.
export * from './create-employee.js';
export * from './list-employees.js';
export * from './manage-time-off.js';
export * from './update-employee.js';
export * from './working-hours.js';
export * from './date-overrides.js';
export * from './employee-lock.js';
export * from './external-calendars.js';
export * from './external-calendar-sync.js';
export * from './add-external-calendar.js';
export * from './remove-external-calendar.js';
export { WorkingHoursInput, WorkingHoursType } from './employee.js';
