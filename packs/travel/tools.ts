import { explainFareRules, findBooking, findFlights, getBookingDetails, getFlightStatus } from './lib/booking-tools.ts';
import { confirmCancellation, confirmFlightChange, quoteCancellation, quoteFlightChange } from './lib/change-tools.ts';
import { checkDisruption, findRebookingOptions, bookReplacementFlight, sendMealVoucher } from './lib/disruption-tools.ts';
import { confirmBags, confirmSeat, listSeats, quoteBags, quoteSeat } from './lib/extras-tools.ts';
import { confirmRefund, listTravelCredits, quoteRefund } from './lib/payment-tools.ts';
import { confirmPetInCabin, quotePetInCabin, recordSpecialAssistance, registerUnaccompaniedMinor } from './lib/service-tools.ts';

/**
 * Bluestem Air (packs.md §5): the tools of an airline's phone line. Booking tools need the
 * `verified` flag, which find_booking sets once a record locator and a traveler's last name match.
 */

export { clock, policy } from './lib/policy.ts';
export { errorCodes } from './lib/error-codes.ts';

/** Services, extras and payments end the route; no desk is a gate, every booking tool is gated. */
export const graphRules = {
  sinks: ['services', 'extras', 'payments'],
  gates: {},
} as const;

/** Every desk tool; transfer_to_human and end_call are the runtime's (blueprint.json opts in). */
export const tools = [
  getFlightStatus,
  findBooking,
  getBookingDetails,
  explainFareRules,
  findFlights,
  checkDisruption,
  findRebookingOptions,
  bookReplacementFlight,
  sendMealVoucher,
  quoteFlightChange,
  confirmFlightChange,
  quoteCancellation,
  confirmCancellation,
  recordSpecialAssistance,
  registerUnaccompaniedMinor,
  quotePetInCabin,
  confirmPetInCabin,
  listSeats,
  quoteSeat,
  confirmSeat,
  quoteBags,
  confirmBags,
  quoteRefund,
  confirmRefund,
  listTravelCredits,
];
