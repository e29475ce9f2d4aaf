import { checkPlanAccepted, checkBenefits, updateInsurance } from './lib/coverage-tools.ts';
import { confirmCosmeticConsult, holdCosmeticConsult, quoteCosmeticPrice, sendDepositLink } from './lib/cosmetic-tools.ts';
import { explainLineItem, getBalance, requestCallback, requestFeeReview, sendPaymentLink, setUpPaymentPlan } from './lib/billing-tools.ts';
import { checkResultStatus, requestRefill, sendCareMessage, sendPortalInvite } from './lib/clinical-tools.ts';
import { getPatientOverview, listLocations, verifyIdentity } from './lib/front-desk-tools.ts';
import { bookVisit, classifyVisit, findOpenings, registerNewPatient, sendVisitText } from './lib/scheduling-tools.ts';
import { confirmVisitChange, joinWaitlist, quoteVisitChange } from './lib/visit-change-tools.ts';

/**
 * Straus Dermatology (packs.md §5.2): the tools of a seven-desk dermatology front line. Gated
 * tools need the `verified` flag, set by verify_identity or by registering a new patient.
 */

export { clock, policy } from './lib/policy.ts';
export { errorCodes } from './lib/error-codes.ts';

/** Scheduling and cosmetic end the route; identity is the PHI gate before every protected desk. */
export const graphRules = {
  sinks: ['scheduling', 'cosmetic'],
  gates: { identity: ['billing', 'clinical'] },
} as const;

/** Every desk tool; transfer_to_human and end_call are the runtime's (blueprint.json opts in). */
export const tools = [
  listLocations,
  verifyIdentity,
  getPatientOverview,
  classifyVisit,
  findOpenings,
  registerNewPatient,
  bookVisit,
  quoteVisitChange,
  confirmVisitChange,
  joinWaitlist,
  sendVisitText,
  checkPlanAccepted,
  checkBenefits,
  updateInsurance,
  quoteCosmeticPrice,
  holdCosmeticConsult,
  confirmCosmeticConsult,
  sendDepositLink,
  getBalance,
  explainLineItem,
  sendPaymentLink,
  setUpPaymentPlan,
  requestFeeReview,
  requestCallback,
  checkResultStatus,
  requestRefill,
  sendCareMessage,
  sendPortalInvite,
];
