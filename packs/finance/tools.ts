import { checkFeeRefund, getAccounts, listTransactions, requestFeeRefund } from './lib/account-tools.ts';
import { addTravelNotice, confirmCardReplacement, getCards, quoteCardReplacement, sendPinReset, updateCardLock } from './lib/card-tools.ts';
import { confirmDispute, findCardPurchases, listDisputes, quoteDispute } from './lib/dispute-tools.ts';
import { checkOneTimeCode, listBranches, reportScamContact, sendOneTimeCode, verifyMember } from './lib/front-desk-tools.ts';
import { getMemberOverview } from './lib/overview-tools.ts';
import { addPayee, cancelScheduledPayment, confirmPayment, listPayees, listScheduledPayments, quotePayment, updateScheduledPayment } from './lib/payment-tools.ts';

/**
 * Fennwood Credit Union (packs.md §5): the tools of a six-desk credit union phone line. Gated tools
 * need the `verified` flag, set by verify_member; risky ones also check the one-time code on the call.
 */

export { clock, policy } from './lib/policy.ts';
export { errorCodes } from './lib/error-codes.ts';

/** Payments and disputes end the route; identity is the gate before every member desk. */
export const graphRules = {
  sinks: ['payments', 'disputes'],
  gates: { identity: ['accounts', 'payments', 'cards', 'disputes'] },
} as const;

/** Every desk tool; transfer_to_human and end_call are the runtime's (blueprint.json opts in). */
export const tools = [
  listBranches,
  reportScamContact,
  verifyMember,
  getMemberOverview,
  sendOneTimeCode,
  checkOneTimeCode,
  getAccounts,
  listTransactions,
  checkFeeRefund,
  requestFeeRefund,
  listPayees,
  addPayee,
  quotePayment,
  confirmPayment,
  listScheduledPayments,
  updateScheduledPayment,
  cancelScheduledPayment,
  getCards,
  updateCardLock,
  quoteCardReplacement,
  confirmCardReplacement,
  addTravelNotice,
  sendPinReset,
  findCardPurchases,
  quoteDispute,
  confirmDispute,
  listDisputes,
];
