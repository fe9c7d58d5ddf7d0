// The client's methods, grouped by resource: `client.<resource>.<verb>` calls the operation
// named on the right (its `operationId` in the OpenAPI document). Every operation has exactly
// one method; the type below fails to compile when the document gains an operation that is
// not here, and the SDK's tests check that the two sets are equal.
import type { OperationId } from './operations.js';

export const RESOURCES = {
  me: {
    get: 'getMe',
    update: 'updateMe',
    rotateCalendarFeed: 'rotateCompanyCalendarFeed',
  },
  services: {
    list: 'listServices',
    create: 'createService',
    get: 'getService',
    update: 'updateService',
    delete: 'deleteService',
  },
  locations: {
    list: 'listLocations',
    create: 'createLocation',
    get: 'getLocation',
    update: 'updateLocation',
    delete: 'deleteLocation',
  },
  resources: {
    list: 'listResources',
    create: 'createResource',
    get: 'getResource',
    update: 'updateResource',
    delete: 'deleteResource',
  },
  employees: {
    list: 'listEmployees',
    create: 'createEmployee',
    get: 'getEmployee',
    update: 'updateEmployee',
    delete: 'deleteEmployee',
    listTimeOff: 'listEmployeeTimeOff',
    createTimeOff: 'createEmployeeTimeOff',
    deleteTimeOff: 'deleteEmployeeTimeOff',
    listDateOverrides: 'listEmployeeDateOverrides',
    setDateOverride: 'setEmployeeDateOverride',
    deleteDateOverride: 'deleteEmployeeDateOverride',
    rotateCalendarFeed: 'rotateEmployeeCalendarFeed',
  },
  customers: {
    list: 'listCustomers',
    create: 'createCustomer',
    get: 'getCustomer',
    update: 'updateCustomer',
    delete: 'deleteCustomer',
    erase: 'eraseCustomer',
    export: 'exportCustomer',
  },
  classes: {
    list: 'listClasses',
    create: 'createClass',
    get: 'getClass',
    update: 'updateClass',
    cancel: 'cancelClass',
  },
  classSchedules: {
    list: 'listClassSchedules',
    create: 'createClassSchedule',
    get: 'getClassSchedule',
    update: 'updateClassSchedule',
    delete: 'deleteClassSchedule',
  },
  closures: {
    list: 'listClosures',
    create: 'createClosure',
    delete: 'deleteClosure',
  },
  availability: {
    get: 'getAvailability',
    explain: 'explainAvailability',
  },
  bookings: {
    list: 'listBookings',
    create: 'createBooking',
    get: 'getBooking',
    update: 'updateBooking',
    confirm: 'confirmBooking',
    complete: 'completeBooking',
    markNoShow: 'markBookingNoShow',
    cancel: 'cancelBooking',
    reschedule: 'rescheduleBooking',
    acceptOffer: 'acceptBookingOffer',
    getCancellationQuote: 'getBookingCancellationQuote',
    rotateManageLink: 'rotateBookingManageLink',
    listNotifications: 'listBookingNotifications',
  },
  bookingSeries: {
    create: 'createBookingSeries',
    get: 'getBookingSeries',
    cancel: 'cancelBookingSeries',
  },
  visits: {
    create: 'createVisit',
    get: 'getVisit',
    cancel: 'cancelVisit',
    reschedule: 'rescheduleVisit',
  },
  payments: {
    list: 'listPayments',
    create: 'createPayment',
    get: 'getPayment',
    update: 'updatePayment',
    refund: 'refundPayment',
  },
  webhookEndpoints: {
    list: 'listWebhookEndpoints',
    create: 'createWebhookEndpoint',
    get: 'getWebhookEndpoint',
    update: 'updateWebhookEndpoint',
    delete: 'deleteWebhookEndpoint',
    rotateSecret: 'rotateWebhookEndpointSecret',
    test: 'testWebhookEndpoint',
    listDeliveries: 'listWebhookDeliveries',
  },
  webhookDeliveries: {
    retry: 'retryWebhookDelivery',
  },
  events: {
    list: 'listEvents',
    get: 'getEvent',
  },
  reports: {
    getBookings: 'getBookingReport',
  },
  emails: {
    list: 'listEmails',
    get: 'getEmail',
  },
  testClocks: {
    list: 'listTestClocks',
    create: 'createTestClock',
    get: 'getTestClock',
    advance: 'advanceTestClock',
    delete: 'deleteTestClock',
  },
  requestLogs: {
    list: 'listRequestLogs',
    get: 'getRequestLog',
  },
} as const satisfies Record<string, Record<string, OperationId>>;

type Resources = typeof RESOURCES;
/** The operations some method calls. */
type Covered = { [R in keyof Resources]: Resources[R][keyof Resources[R]] }[keyof Resources];
/** The operations of the document that no method calls: must be none. */
export type Uncovered = Exclude<OperationId, Covered>;
// Fails to compile, naming the operations, when the document has one this table lacks.
const everyOperationHasAMethod: [Uncovered] extends [never] ? true : { missing: Uncovered } = true;
void everyOperationHasAMethod;
