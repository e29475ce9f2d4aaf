import type { ErrorCodeEntry } from '../../../src/packs/index.ts';

/**
 * Every refusal a Halverson & Reed tool returns, with its one fixed spoken sentence (packs.md §2.9).
 * The runtime adds NOT_VERIFIED, INVALID_ARGUMENTS and INTERNAL_ERROR.
 */
export const errorCodes: Record<string, ErrorCodeEntry> = {
  CALLER_DETAILS_REQUIRED: { safe_message: 'To take a message I need the caller\'s name and a number to call back.', recoverable: true },
  VERIFICATION_DETAILS_REQUIRED: { safe_message: 'I need the matter number and the date of birth to find the case file.', recoverable: true },
  NO_MATCH: { safe_message: 'I could not match that matter number and date of birth to a case file.', recoverable: true },
  CLIENT_LOCKED: { safe_message: 'For security, I cannot verify anyone on this call anymore. A member of our staff can help.', recoverable: false },
  THIRD_PARTY_CALLER: { safe_message: 'I can only discuss a case with the person the firm represents. I can take a message, and the team will contact them directly.', recoverable: false },
  MATTER_CLOSED: { safe_message: 'That matter is closed, so there is no case meeting to book on it.', recoverable: false },
  NO_CHANGES_GIVEN: { safe_message: 'I need at least one new contact detail to update.', recoverable: true },
  CONFLICT_CHECK_REQUIRED: { safe_message: 'Before I can open an intake, the conflict check on the other party has to come back clear and the case has to fit our practice.', recoverable: true },
  DEADLINE_REVIEW_REQUIRED: { safe_message: 'The usual screening deadline for this kind of claim appears to have passed, so an attorney has to review it before an intake is opened.', recoverable: false },
  INCIDENT_DATE_INVALID: { safe_message: 'That incident date is not a date in the past.', recoverable: true },
  AREA_NOT_HANDLED: { safe_message: 'The firm does not handle that kind of matter.', recoverable: false },
  INTAKE_REQUIRED: { safe_message: 'I need to take down the details of the matter first.', recoverable: true },
  NO_EMAIL_ON_INTAKE: { safe_message: 'There is no email address on this intake.', recoverable: true },
  RECORD_TYPE_NOT_RELEVANT: { safe_message: 'That kind of record is not part of this type of claim.', recoverable: true },
  DATE_IN_PAST: { safe_message: 'That date has already passed.', recoverable: true },
  BEYOND_HORIZON: { safe_message: 'Consultations are scheduled up to three weeks ahead.', recoverable: true },
  OPENING_NOT_FOUND: { safe_message: 'I could not find that consultation time on the schedule.', recoverable: true },
  OPENING_TAKEN: { safe_message: 'That consultation time is no longer available.', recoverable: true },
  OPENING_NOT_SUITABLE: { safe_message: 'That time is with an attorney who cannot take this consultation.', recoverable: true },
  CONSULT_ALREADY_BOOKED: { safe_message: 'There is already a consultation booked on this call.', recoverable: true },
  CONSULT_NOT_FOUND: { safe_message: 'I could not find that consultation for this caller.', recoverable: true },
  TOKEN_UNKNOWN: { safe_message: 'I do not have an open hold to confirm.', recoverable: true },
  TOKEN_WRONG_KIND: { safe_message: 'That confirmation belongs to a different kind of request.', recoverable: true },
  TOKEN_WRONG_OWNER: { safe_message: 'That hold belongs to a different caller.', recoverable: false },
  TOKEN_USED: { safe_message: 'That consultation has already been confirmed.', recoverable: false },
  TOKEN_SUPERSEDED: { safe_message: 'That hold was replaced by a newer one.', recoverable: true },
  ACK_REQUIRED: { safe_message: 'Before I book it, I need the caller to agree to the consultation fee I read.', recoverable: true },
};
