import { checkCharge, checkContactClaim, reportScam } from './lib/fraud-tools.ts';
import { explainPolicy, listStores } from './lib/front-desk-tools.ts';
import { checkMembership, confirmMembershipChange, quoteMembershipChange } from './lib/membership-tools.ts';
import { cancelOrder, checkPriceProtection, confirmDeliveryReschedule, getOrder, quoteDeliveryReschedule, requestPriceAdjustment } from './lib/order-tools.ts';
import { checkRefund, checkReturnWindow, confirmReturnRequest, quoteReturnRequest, sendReturnLabel } from './lib/return-tools.ts';
import { bookServiceAppointment, cancelServiceAppointment, checkCoverage, findBenchSlots, listItemPlans } from './lib/service-tools.ts';
import { findCustomer, getAccountOverview, verifyCustomer } from './lib/verification-tools.ts';

/**
 * Kestrel Electronics (packs.md §5.4): the tools of a seven-desk electronics retailer line.
 * Every tool on orders, returns, service and membership needs the `verified` flag, set by
 * verify_customer; the fraud desk is deliberately ungated and returns no account data.
 */

export { clock, policy } from './lib/policy.ts';
export { errorCodes } from './lib/error-codes.ts';

/** Service and fraud end the route; verification is the account gate before the four account desks. */
export const graphRules = {
  sinks: ['service', 'fraud'],
  gates: { verification: ['orders', 'returns', 'service', 'membership'] },
} as const;

/** Every desk tool; transfer_to_human and end_call are the runtime's (blueprint.json opts in). */
export const tools = [
  listStores,
  explainPolicy,
  findCustomer,
  verifyCustomer,
  getAccountOverview,
  getOrder,
  cancelOrder,
  quoteDeliveryReschedule,
  confirmDeliveryReschedule,
  checkPriceProtection,
  requestPriceAdjustment,
  checkReturnWindow,
  quoteReturnRequest,
  confirmReturnRequest,
  sendReturnLabel,
  checkRefund,
  listItemPlans,
  checkCoverage,
  findBenchSlots,
  bookServiceAppointment,
  cancelServiceAppointment,
  checkMembership,
  quoteMembershipChange,
  confirmMembershipChange,
  checkCharge,
  checkContactClaim,
  reportScam,
];
