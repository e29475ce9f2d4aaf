import { getMatterStatus, updateContactDetails, verifyClient } from './lib/client-tools.ts';
import { addCaseNote, createIntake, requestRecordsRelease, sendIntakeForms } from './lib/intake-tools.ts';
import { getFirmInfo, takeMessage } from './lib/reception-tools.ts';
import { cancelConsult, confirmConsult, findConsultTimes, holdConsult } from './lib/scheduling-tools.ts';
import { checkCaseFit, checkConflict, checkFilingWindow } from './lib/screening-tools.ts';

/**
 * Halverson & Reed (packs.md §5.3): the tools of a five-desk plaintiff firm front line. Two gates
 * live in tool code: create_intake refuses with CONFLICT_CHECK_REQUIRED until this call's conflict
 * check on the same party came back clear and case fit came back accepted, and client-services
 * tools need the `verified` flag that verify_client sets.
 */

export { clock, policy } from './lib/policy.ts';
export { errorCodes } from './lib/error-codes.ts';

/**
 * Scheduling ends every route. Screening and client services are the gate desks; neither lists a
 * protected desk, because their gates sit on single tools (CONFLICT_CHECK_REQUIRED inside
 * create_intake; `gate: 'verified'` on the client-services tools, which the executor refuses with
 * NOT_VERIFIED), not on a protected desk's whole toolset.
 */
export const graphRules = {
  sinks: ['scheduling'],
  gates: { screening: [], client_services: [] },
} as const;

/** Every desk tool; transfer_to_human and end_call are the runtime's (blueprint.json opts in). */
export const tools = [
  getFirmInfo,
  takeMessage,
  checkConflict,
  checkCaseFit,
  checkFilingWindow,
  createIntake,
  addCaseNote,
  sendIntakeForms,
  requestRecordsRelease,
  findConsultTimes,
  holdConsult,
  confirmConsult,
  cancelConsult,
  verifyClient,
  getMatterStatus,
  updateContactDetails,
];
