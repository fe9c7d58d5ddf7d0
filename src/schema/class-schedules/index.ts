// Class schedules: recurring class timetables that generate class sessions on a rolling horizon.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (class-schedule.ts) is registered by src/schema/index.ts.
export { createClassSchedule, deleteClassSchedule, updateClassSchedule } from './manage-class-schedules.js';
export { extendClassSchedules, extendCompanyClassSchedules, type ExtendResult } from './extend-class-schedules.js';
export { generateSessions, HORIZON_DAYS, horizonOf, sessionNeeds } from './generate-sessions.js';
export { listActiveClassSchedules } from './list-class-schedules.js';
export { resolvePlace, type SchedulePlace } from './schedule-place.js';
