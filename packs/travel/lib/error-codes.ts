import type { ErrorCodeEntry } from '../../../src/packs/index.ts';

/**
 * Every refusal a Bluestem tool returns, with its one fixed spoken sentence (packs.md §2.9). The
 * runtime adds NOT_VERIFIED, INVALID_ARGUMENTS and INTERNAL_ERROR.
 */
export const errorCodes: Record<string, ErrorCodeEntry> = {
  BOOKING_NOT_FOUND: { safe_message: 'I could not find a booking with that confirmation code and last name.', recoverable: true },
  LOOKUP_LOCKED: { safe_message: 'For the security of our travelers, I cannot look up bookings on this call anymore. A member of our team can help.', recoverable: false },
  BOOKING_CANCELLED: { safe_message: 'That booking has already been cancelled.', recoverable: false },
  FLIGHT_NOT_FOUND: { safe_message: 'I could not find that flight on that date.', recoverable: true },
  SEGMENT_NOT_FOUND: { safe_message: 'I could not find that flight on this booking.', recoverable: true },
  SEGMENT_NOT_ACTIVE: { safe_message: 'That flight is no longer on this booking.', recoverable: false },
  PASSENGER_NOT_FOUND: { safe_message: 'That traveler is not on this booking.', recoverable: true },
  NOT_DISRUPTED: { safe_message: 'That flight is running on time, so there is no disruption to handle.', recoverable: false },
  DELAY_BELOW_THRESHOLD: { safe_message: 'That delay is shorter than the delay that allows a refund or free rebooking.', recoverable: false },
  OUTSIDE_REBOOKING_WINDOW: { safe_message: 'Free rebooking covers flights on the same route within three days of the original date.', recoverable: true },
  ROUTE_MISMATCH: { safe_message: 'That flight does not fly the same route.', recoverable: true },
  FLIGHT_FULL: { safe_message: 'That flight has no seats left for everyone on the booking.', recoverable: true },
  FLIGHT_NOT_AVAILABLE: { safe_message: 'That flight is not available to book.', recoverable: true },
  VOUCHER_NOT_ELIGIBLE: { safe_message: 'This delay does not qualify for a meal voucher under our policy.', recoverable: false },
  FARE_NOT_CHANGEABLE: { safe_message: 'Basic fares cannot be changed, except on a booking made twenty-four hours ago or less, for a flight at least seven days after booking.', recoverable: false },
  SAME_FLIGHT: { safe_message: 'That is the flight already on the booking.', recoverable: true },
  DATE_IN_PAST: { safe_message: 'That date has already passed.', recoverable: true },
  TOKEN_UNKNOWN: { safe_message: 'I do not have an open request to confirm.', recoverable: true },
  TOKEN_WRONG_KIND: { safe_message: 'That confirmation belongs to a different kind of request.', recoverable: true },
  TOKEN_WRONG_OWNER: { safe_message: 'That open request belongs to a different booking.', recoverable: false },
  TOKEN_USED: { safe_message: 'That request has already been completed.', recoverable: false },
  TOKEN_SUPERSEDED: { safe_message: 'That quote was replaced by a newer one.', recoverable: true },
  ACK_REQUIRED: { safe_message: 'Before I go ahead, I need the traveler to agree to the amount I read.', recoverable: true },
  NOT_REFUNDABLE: { safe_message: 'This flight is not eligible for a refund because it operated without a significant change.', recoverable: false },
  ALREADY_REFUNDED: { safe_message: 'That flight has already been refunded.', recoverable: false },
  SEAT_NOT_FOUND: { safe_message: 'That seat does not exist on this aircraft.', recoverable: true },
  SEAT_TAKEN: { safe_message: 'That seat is already taken.', recoverable: true },
  BAG_LIMIT: { safe_message: 'I can add at most two checked bags per traveler on each flight by phone.', recoverable: true },
  PET_KIND_NOT_ALLOWED: { safe_message: 'Only small dogs and cats can travel in the cabin.', recoverable: false },
  PET_SPACE_FULL: { safe_message: 'That flight has no room left for pets in the cabin.', recoverable: false },
  PET_EXISTS: { safe_message: 'There is already a pet reserved for this traveler on that flight.', recoverable: false },
  MINOR_TOO_YOUNG: { safe_message: 'Children under five cannot travel without an adult.', recoverable: false },
  MINOR_NOT_ELIGIBLE: { safe_message: 'The unaccompanied minor service is for travelers from five to seventeen years old.', recoverable: false },
  NOT_TRAVELING_ALONE: { safe_message: 'This child is traveling with an adult on the same booking, so the service is not needed.', recoverable: false },
};
