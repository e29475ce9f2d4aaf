import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, moneyInWords, normalizeFields, ok, openHold, param, preparedQuery, refuse, rowInsert } from '../../../src/packs/index.ts';
import { assistanceRequests, charges, flights, minorServices, petReservations } from '../schema.ts';
import { passengerIdField, personNameField, phoneField, readBool, readCode, readName, readPhone, segmentIdField, tokenField } from './fields.ts';
import { ASSISTANCE_KINDS, PET_KINDS, policy } from './policy.ts';
import { ageOn, bookedTraveler, flightById, flightOf, isRefusal, passengersOf, verifiedBooking } from './records.ts';

/** Passenger services: special assistance, the unaccompanied minor service and pets in the cabin. */

const assistanceById = preparedQuery((db) => db.select().from(assistanceRequests).where(eq(assistanceRequests.id, param('id'))).prepare());
const minorById = preparedQuery((db) => db.select().from(minorServices).where(eq(minorServices.id, param('id'))).prepare());
const insertAssistance = rowInsert(assistanceRequests);
const insertMinor = rowInsert(minorServices);

/** Each kind of help as it is said after "needs": a sentence a caller hears, not the code. */
const ASSISTANCE_SPOKEN: Record<(typeof ASSISTANCE_KINDS)[number], string> = {
  wheelchair_to_gate: 'a wheelchair to the gate',
  wheelchair_to_seat: 'a wheelchair all the way to the seat',
  blind_or_low_vision: 'help as a blind or low-vision traveler',
  deaf_or_hard_of_hearing: 'help as a deaf or hard-of-hearing traveler',
  extra_time_boarding: 'extra time to board',
};

export const recordSpecialAssistance = defineTool({
  name: 'record_special_assistance',
  description:
    'Use when: a traveler needs help at the airport or on board: a wheelchair to the gate or to the seat, help for a blind or deaf traveler, or extra time to board. One kind per call. Returns: the request recorded and a script; idempotent. Do not use for: medical oxygen or stretchers, which need a person. Errors: NOT_VERIFIED, PASSENGER_NOT_FOUND, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE.',
  input: z.object({
    passenger_id: passengerIdField,
    segment_id: segmentIdField,
    kind: z.enum(ASSISTANCE_KINDS).describe('"Can walk a little but not the long way" is wheelchair_to_gate; "cannot manage steps or the aisle" is wheelchair_to_seat.'),
  }),
  output: z.object({ request_id: z.string(), kind: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['assistance_requests', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { passenger_id: readCode, segment_id: readCode, kind: readCode }),
  run(args, ctx) {
    const found = bookedTraveler(ctx, args.passenger_id, args.segment_id);
    if (isRefusal(found)) return found;
    const { booking, pax, seg } = found;
    const id = `ast_${seg.id.slice(4)}_${pax.id.slice(4)}_${args.kind}`;
    const script = `I have noted that ${pax.first_name} needs ${ASSISTANCE_SPOKEN[args.kind]} on this flight. Please tell the agent at check in when you arrive.`;
    if (assistanceById(ctx.db).get({ id })) return ok({ request_id: id, kind: args.kind, idempotent: true, script });
    insertAssistance(ctx.db).run({ id, passenger_id: pax.id, segment_id: seg.id, kind: args.kind });
    return ok({ request_id: id, kind: args.kind, idempotent: false, script });
  },
});

export const registerUnaccompaniedMinor = defineTool({
  name: 'register_unaccompanied_minor',
  description:
    'Use when: a child on the booking flies without an adult; required from five to fourteen, optional to seventeen, free. Needs the full name and phone of the adult meeting the child. Returns: the service recorded with a script; idempotent. Do not use for: children flying with an adult on the booking. Errors: NOT_VERIFIED, PASSENGER_NOT_FOUND, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, MINOR_TOO_YOUNG, MINOR_NOT_ELIGIBLE, NOT_TRAVELING_ALONE.',
  input: z.object({ passenger_id: passengerIdField, segment_id: segmentIdField, pickup_name: personNameField.describe('Full name of the adult meeting the child.'), pickup_phone: phoneField.describe('That adult\'s phone, E.164.') }),
  output: z.object({ service_id: z.string(), age_at_departure: z.number().int(), required: z.boolean(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['minor_services', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { passenger_id: readCode, segment_id: readCode, pickup_name: readName, pickup_phone: readPhone }),
  run(args, ctx) {
    const found = bookedTraveler(ctx, args.passenger_id, args.segment_id);
    if (isRefusal(found)) return found;
    const { booking, pax, seg } = found;
    const departs = flightOf(ctx.db, seg).departs_at.slice(0, 10);
    const age = ageOn(pax.date_of_birth, departs);
    if (age < policy.minor_service_min_age) return refuse('MINOR_TOO_YOUNG', { recoverable: false, age });
    if (age >= 18) return refuse('MINOR_NOT_ELIGIBLE', { recoverable: false, age });
    const adults = passengersOf(ctx.db).all({ booking: booking.id }).filter((p) => ageOn(p.date_of_birth, departs) >= 18);
    if (adults.length > 0) return refuse('NOT_TRAVELING_ALONE', { recoverable: false });
    const id = `umn_${seg.id.slice(4)}_${pax.id.slice(4)}`;
    const script = `${pax.first_name} is booked with our unaccompanied minor service. A staff member will walk ${pax.first_name} to the plane and hand over only to ${args.pickup_name}, who must bring photo identification.`;
    const out = { service_id: id, age_at_departure: age, required: age <= policy.minor_service_required_max_age, script };
    if (minorById(ctx.db).get({ id })) return ok({ ...out, idempotent: true });
    insertMinor(ctx.db).run({ id, passenger_id: pax.id, segment_id: seg.id, pickup_name: args.pickup_name, pickup_phone: args.pickup_phone });
    return ok({ ...out, idempotent: false });
  },
});

const petById = preparedQuery((db) => db.select().from(petReservations).where(eq(petReservations.id, param('id'))).prepare());
const setPetSpaces = preparedQuery((db) => db.update(flights).set({ pet_spaces_left: param('spaces') }).where(eq(flights.id, param('id'))).prepare());
const insertPet = rowInsert(petReservations);
const insertCharge = rowInsert(charges);
const petPayload = z.object({ passenger_id: z.string(), segment_id: z.string(), flight_id: z.string(), pet_kind: z.enum(PET_KINDS), price_cents: z.number().int() });

export const quotePetInCabin = defineTool({
  name: 'quote_pet_in_cabin',
  description:
    'Use when: a traveler wants to bring a small dog or cat in a carrier under the seat. Returns: a token, the pet fee for this flight and a script to read. Writes nothing. Do not use for: service animals or other animals. Errors: NOT_VERIFIED, PASSENGER_NOT_FOUND, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, PET_KIND_NOT_ALLOWED, PET_SPACE_FULL, PET_EXISTS.',
  input: z.object({ passenger_id: passengerIdField, segment_id: segmentIdField, pet_kind: z.string().regex(/^[a-z_]{2,20}$/).describe('dog or cat; name any other animal as the caller says it, such as rabbit.') }),
  output: z.object({ token: z.string(), fee_cents: z.number().int(), fee_spoken: z.string(), pet_spaces_left: z.number().int(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { passenger_id: readCode, segment_id: readCode, pet_kind: readCode }),
  run(args, ctx) {
    const found = bookedTraveler(ctx, args.passenger_id, args.segment_id);
    if (isRefusal(found)) return found;
    const { booking, pax, seg } = found;
    const kind = PET_KINDS.find((k) => k === args.pet_kind);
    if (!kind) return refuse('PET_KIND_NOT_ALLOWED', { recoverable: false });
    if (petById(ctx.db).get({ id: `pet_${seg.id.slice(4)}_${pax.id.slice(4)}` })) return refuse('PET_EXISTS', { recoverable: false });
    const flight = flightOf(ctx.db, seg);
    if (flight.pet_spaces_left < 1) return refuse('PET_SPACE_FULL', { recoverable: false });
    const token = openHold(ctx, { kind: 'pet', target: `${seg.id}:${pax.id}`, payload: { passenger_id: pax.id, segment_id: seg.id, flight_id: flight.id, pet_kind: kind, price_cents: policy.pet_in_cabin_cents } });
    return ok({
      token,
      fee_cents: policy.pet_in_cabin_cents,
      fee_spoken: moneyInWords(policy.pet_in_cabin_cents),
      pet_spaces_left: flight.pet_spaces_left,
      script: `A ${kind} in the cabin costs ${moneyInWords(policy.pet_in_cabin_cents)} for this flight, charged to the card used for the booking. The carrier must fit under the seat in front. Shall I reserve it?`,
    });
  },
});

export const confirmPetInCabin = defineTool({
  name: 'confirm_pet_in_cabin',
  description:
    'Use when: the traveler accepted the pet fee you quoted; pass fee_acknowledged true only then. Returns: the pet reserved and the fee charged. Do not use for: a pet you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, PET_SPACE_FULL.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the traveler accepted the quoted fee.') }),
  output: z.object({ reservation_id: z.string(), charged_cents: z.number().int(), charged_spoken: z.string() }),
  effect: 'write',
  writes: ['pet_reservations', 'charges', 'flights', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_pet_in_cabin',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'pet', petPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    if (args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true });
    const booking = verifiedBooking(ctx);
    const flight = flightById(ctx.db).get({ id: p.flight_id });
    if (!flight || flight.pet_spaces_left < 1) return refuse('PET_SPACE_FULL', { recoverable: false });
    const id = `pet_${p.segment_id.slice(4)}_${p.passenger_id.slice(4)}`;
    insertPet(ctx.db).run({ id, passenger_id: p.passenger_id, segment_id: p.segment_id, pet_kind: p.pet_kind, price_cents: p.price_cents });
    setPetSpaces(ctx.db).run({ spaces: flight.pet_spaces_left - 1, id: flight.id });
    insertCharge(ctx.db).run({ id: `chg_${id.slice(4)}_pet`, booking_id: booking.id, kind: 'pet', amount_cents: p.price_cents, created_at: ctx.clock.now() });
    markHoldUsed(ctx.db, held.token);
    return ok({ reservation_id: id, charged_cents: p.price_cents, charged_spoken: moneyInWords(p.price_cents) });
  },
});
