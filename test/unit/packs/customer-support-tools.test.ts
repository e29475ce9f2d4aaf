import { describe, expect, it } from 'vitest';
import { dumpDatabase, type CallDatabase } from '../../../src/store/index.ts';
import { type ToolExecution } from '../../../src/tools/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';
import { addMonths, membershipMoney, priceProtection, restockingFee, returnWindowDays, roundHalfUp, serviceLadder } from '../../../packs/customer-support/lib/rules.ts';


type Args = Record<string, unknown>;
/** Phone, billing ZIP and card last four of a seeded customer. */
type Person = readonly [phone: string, zip: string, last4: string];
const OMAR: Person = ['+13125550141', '60614', '4417'];
const PRIYA: Person = ['+17735550162', '60657', '2290'];
const LUIS: Person = ['+16305550118', '60540', '8034'];
const ADELE: Person = ['+18475550177', '60201', '6651'];
const TOM: Person = ['+17735550104', '60618', '3329'];
const ANA: Person = ['+13125550126', '60622', '5108'];
const BEN: Person = ['+16305550193', '60187', '7742'];
const ROSA: Person = ['+17735550135', '60625', '1856'];
const ETHAN: Person = ['+13125550188', '60611', '9023'];
const JUNE: Person = ['+18475550150', '60202', '6608'];
const MARCO: Person = ['+17085550172', '60302', '4481'];
const GRETA: Person = ['+17085550131', '60305', '2718'];
const LEAH: Person = ['+13125550109', '60610', '3075'];
const VICTOR: Person = ['+16305550166', '60515', '2184'];
const IRENE: Person = ['+17735550147', '60613', '5562'];
const SAM: Person = ['+13125550176', '60615', '7305'];
const NORA: Person = ['+16305550144', '60563', '1290'];
const CARLA: Person = ['+17735550158', '60657', '3306'];
const PAUL: Person = ['+16305550127', '60517', '8812'];
const ZOE: Person = ['+13125550163', '60607', '9471'];
const MARIA: Person = ['+17735550193', '60618', '4920'];
// Seed rows exactly on each edge (the edge is inside for every one of them).
const LENA: Person = ['+17735550184', '60640', '3817'];
const OWEN: Person = ['+16305550152', '60564', '5290'];
const MINA: Person = ['+17085550125', '60304', '7163'];
const FELIX: Person = ['+18475550139', '60203', '2047'];
const DANA: Person = ['+13125550115', '60616', '6924'];
const HUGO: Person = ['+16305550181', '60565', '4386'];
const GLORIA: Person = ['+17735550129', '60647', '8150'];
const THEO: Person = ['+13125550197', '60654', '1538'];
// Seed rows one day either side of an edge.
const RACHEL: Person = ['+17735550119', '60626', '5831'];
const SIMON: Person = ['+18475550112', '60201', '3962'];
const IRIS: Person = ['+16305550135', '60563', '7415'];
const MARTIN: Person = ['+17085550148', '60302', '2579'];
const ELENA: Person = ['+17735550153', '60639', '4728'];
const DEREK: Person = ['+16305550173', '60532', '9186'];
const KIRA: Person = ['+13125550138', '60608', '6042'];

describe('customer-support tools (Kestrel Electronics)', () => {
  const { pack: loadedPack, fresh, call, data, code, rows } = usePackTools('customer-support');
  const verify = (db: CallDatabase, [phone, zip_code, card_last4]: Person): ToolExecution => {
    data(call(db, 'find_customer', { phone }));
    return call(db, 'verify_customer', { zip_code, card_last4 });
  };
  const as = (person: Person): CallDatabase => {
    const db = fresh();
    expect(verify(db, person).output.ok).toBe(true);
    return db;
  };
  const setDelivered = (db: CallDatabase, order: string, date: string): void => void db.sqlite.prepare('UPDATE orders SET delivered_on = ? WHERE id = ?').run(date, order);
  const daysAgo = (days: number): string => loadedPack().clock.addDays(loadedPack().clock.today(), -days);

  describe('verification gate', () => {
    it('refuses every account-desk tool with NOT_VERIFIED and writes nothing before verification', () => {
      const db = fresh();
      const before = dumpDatabase(db.sqlite);
      for (const [tool, args] of [
        ['get_account_overview', {}],
        ['get_order', { order_number: 'KE-480112' }],
        ['cancel_order', { order_number: 'KE-482001', reason: 'changed_mind' }],
        ['check_return_window', { item_id: 'itm_480112_1', condition: 'opened' }],
        ['list_item_plans', {}],
        ['book_service_appointment', { slot_id: 'bs_lakeview_1009_1300', item_id: 'itm_458730_1', issue: 'wont_charge' }],
        ['check_membership', {}],
      ] as const) {
        expect([tool, code(call(db, tool, args))]).toEqual([tool, 'NOT_VERIFIED']);
      }
      const after = dumpDatabase(db.sqlite);
      for (const t of Object.keys(before).filter((t) => t !== 'call_session')) expect(after[t], t).toEqual(before[t]);
    });

    it('finds by phone or order number, and refuses two keys that name different accounts', () => {
      const db = fresh();
      expect(data(call(db, 'find_customer', { phone: '(312) 555-0141' }))).toMatchObject({ first_name: 'Omar', phone_ending: 'ending in 0141', matched_by: 'phone' });
      expect(data(call(db, 'find_customer', { order_number: 'ke 480112' }))).toMatchObject({ first_name: 'Omar', matched_by: 'order_number' });
      expect(code(call(db, 'find_customer', { phone: OMAR[0], order_number: 'KE-481007' }))).toBe('CUSTOMER_NOT_FOUND');
      expect(code(call(db, 'find_customer', { phone: '+13125559999' }))).toBe('CUSTOMER_NOT_FOUND');
      expect(code(call(fresh(), 'verify_customer', { zip_code: '60614', card_last4: '4417' }))).toBe('FIND_CUSTOMER_FIRST');
    });

    it('verifies with ZIP and card last four, and locks after two failures even for the right details', () => {
      expect(data(verify(fresh(), OMAR))).toMatchObject({ verified: true, first_name: 'Omar', tier: 'standard' });
      expect(data(verify(fresh(), ADELE))).toMatchObject({ tier: 'elite' });
      const db = fresh();
      data(call(db, 'find_customer', { phone: OMAR[0] }));
      const first = call(db, 'verify_customer', { zip_code: '60614', card_last4: '4418' });
      expect([code(first), (first.output.data as Args).attempts_left]).toEqual(['NO_MATCH', 1]);
      expect(code(call(db, 'verify_customer', { zip_code: '60615', card_last4: '4417' }))).toBe('VERIFICATION_LOCKED');
      expect(code(call(db, 'verify_customer', { zip_code: '60614', card_last4: '4417' }))).toBe('VERIFICATION_LOCKED');
      expect(code(call(db, 'find_customer', { phone: OMAR[0] }))).toBe('VERIFICATION_LOCKED');
      expect(code(call(db, 'get_account_overview'))).toBe('NOT_VERIFIED');
      expect(data(call(db, 'transfer_to_human', { reason: 'verification_failed' }))).toMatchObject({ transferred: true });
      expect(rows(db, 'escalations')).toMatchObject([{ id: 'esc_call', subject_kind: null, subject_id: null, reason: 'verification_failed' }]);
    });

    it('shows the verified account overview with orders, items and plans', () => {
      const overview = data(call(as(CARLA), 'get_account_overview'));
      expect(overview).toMatchObject({ first_name: 'Carla', tier: 'standard', plans: [{ item_id: 'itm_458730_1', level: 'shield', ends_on: '2027-03-10' }] });
      expect(overview.orders).toMatchObject([{ order_number: 'KE-458730', items: [{ item_id: 'itm_458730_1', name: 'Atlas 15 laptop' }] }]);
    });
  });

  describe('return windows by tier and device', () => {
    const window = (db: CallDatabase, item: string, condition = 'opened'): Args => data(call(db, 'check_return_window', { item_id: item, condition }));

    it('gives phones 14 days for everyone: 12 days inside with the $40 fee, 16 days two over even for Circle', () => {
      expect(window(as(OMAR), 'itm_480112_1')).toMatchObject({ returnable: true, window_days: 14, days_used: 12, fee_cents: 4000, refund_cents: 75999 });
      expect(window(as(PRIYA), 'itm_480236_1')).toMatchObject({ returnable: false, window_days: 14, days_used: 16, days_over: 2, refund_cents: 0 });
    });

    it('gives standard 21 and Circle 30 days: 22 days after delivery is one over for Tom and inside for Ana', () => {
      expect(window(as(TOM), 'itm_479551_1', 'unopened')).toMatchObject({ returnable: false, window_days: 21, days_over: 1 });
      expect(window(as(ANA), 'itm_479560_1')).toMatchObject({ returnable: true, window_days: 30, days_left: 8, fee_cents: 0 });
    });

    it('puts the last day inside every window and the day after outside', () => {
      const cases: [Person, string, string, number][] = [
        [OMAR, 'ord_480112', 'itm_480112_1', 14],
        [TOM, 'ord_479551', 'itm_479551_1', 21],
        [ANA, 'ord_479560', 'itm_479560_1', 30],
        [ADELE, 'ord_481150', 'itm_481150_1', 45],
      ];
      for (const [person, order, item, days] of cases) {
        const db = as(person);
        setDelivered(db, order, daysAgo(days));
        expect(window(db, item), `${item} at ${days}`).toMatchObject({ returnable: true, window_days: days, days_left: 0 });
        setDelivered(db, order, daysAgo(days + 1));
        expect(window(db, item), `${item} at ${days + 1}`).toMatchObject({ returnable: false, days_over: 1 });
        expect(code(call(db, 'quote_return_request', { item_id: item, condition: 'opened', reason: 'changed_mind' }))).toBe('RETURN_WINDOW_CLOSED');
      }
      expect(returnWindowDays('elite', true).window_days).toBe(14);
    });

    it('sends marketplace returns to the seller', () => {
      const db = as(BEN);
      expect(window(db, 'itm_481233_1')).toMatchObject({ returnable: false, sold_by: 'Northfield Optics' });
      expect(code(call(db, 'quote_return_request', { item_id: 'itm_481233_1', condition: 'opened', reason: 'changed_mind' }))).toBe('MARKETPLACE_SELLER_ITEM');
    });
  });

  describe('restocking fees', () => {
    it('charges 12 percent rounded half up on a standard customer\'s opened drone and nothing for Elite', () => {
      expect(data(call(as(LUIS), 'check_return_window', { item_id: 'itm_481007_1', condition: 'opened' }))).toMatchObject({ fee_cents: 13200, refund_cents: 96799 });
      expect(data(call(as(ADELE), 'check_return_window', { item_id: 'itm_481150_1', condition: 'opened' }))).toMatchObject({ fee_cents: 0, refund_cents: 109999 });
    });

    it('charges nothing for a defect reported inside the window or an unopened item', () => {
      const db = as(LUIS);
      expect(data(call(db, 'check_return_window', { item_id: 'itm_481007_1', condition: 'defective' }))).toMatchObject({ fee_cents: 0 });
      expect(data(call(db, 'check_return_window', { item_id: 'itm_481007_1', condition: 'unopened' }))).toMatchObject({ fee_cents: 0 });
      expect(restockingFee({ condition: 'opened', restockClass: 'percent', tier: 'standard', pricePaidCents: 12345 }).fee_cents).toBe(1481); // 1481.4
      expect(restockingFee({ condition: 'opened', restockClass: 'percent', tier: 'circle', pricePaidCents: 12500 }).fee_cents).toBe(1500);
      expect(restockingFee({ condition: 'opened', restockClass: 'activation', tier: 'circle', pricePaidCents: 79999 }).fee_cents).toBe(4000);
    });

    it('holds a fee return until the fee is acknowledged, writes the stored payload, and sends the label', () => {
      const db = as(OMAR);
      const quote = data(call(db, 'quote_return_request', { item_id: 'itm_480112_1', condition: 'opened', reason: 'changed_mind' }));
      expect(quote).toMatchObject({ fee_cents: 4000, refund_cents: 75999, requires_acknowledgement: true, return_method: 'mail_label' });
      expect(rows(db, 'rmas')).toEqual([]);
      expect(code(call(db, 'confirm_return_request', { token: quote.token }))).toBe('ACK_REQUIRED');
      const done = data(call(db, 'confirm_return_request', { token: quote.token, fee_acknowledged: true }));
      expect(done).toMatchObject({ rma_id: 'rma_480112_1', refund_cents: 75999, fee_charged_cents: 4000 });
      expect(rows(db, 'rmas')).toMatchObject([{ id: 'rma_480112_1', fee_cents: 4000, refund_cents: 75999, item_condition: 'opened' }]);
      expect(code(call(db, 'confirm_return_request', { token: quote.token, fee_acknowledged: true }))).toBe('TOKEN_USED');
      expect(data(call(db, 'send_return_label', { rma_id: 'rma_480112_1' }))).toMatchObject({ sent_to: 'o***@example.com', expires_on: '2026-10-22', idempotent: false });
      expect(data(call(db, 'send_return_label', { rma_id: 'itm_480112_1' }))).toMatchObject({ idempotent: true });
      expect(rows(db, 'return_labels')).toHaveLength(1);
    });

    it('keeps lithium battery returns to a store and refuses a label with no email on file', () => {
      const zoe = as(ZOE);
      const quote = data(call(zoe, 'quote_return_request', { item_id: 'itm_481500_2', condition: 'unopened', reason: 'changed_mind' }));
      expect(quote).toMatchObject({ return_method: 'store_drop_off', fee_cents: 0, refund_cents: 2999 });
      data(call(zoe, 'confirm_return_request', { token: quote.token }));
      expect(code(call(zoe, 'send_return_label', { rma_id: 'rma_481500_2' }))).toBe('BATTERY_DROP_OFF_ONLY');
      expect(rows(zoe, 'return_labels')).toEqual([]);
      const nora = as(NORA);
      const q = data(call(nora, 'quote_return_request', { item_id: 'itm_481420_1', condition: 'unopened', reason: 'changed_mind' }));
      data(call(nora, 'confirm_return_request', { token: q.token }));
      expect(code(call(nora, 'send_return_label', { rma_id: 'rma_481420_1' }))).toBe('NO_EMAIL_ON_FILE');
    });

    it('reports refunds issued and still processing', () => {
      expect(data(call(as(MARIA), 'check_refund', { order_number: 'KE-478802' }))).toMatchObject({
        refunds: [
          { item_id: 'itm_478802_1', amount_cents: 25999, status: 'issued', date: '2026-10-02' },
          { item_id: 'itm_478802_2', amount_cents: 24999, status: 'processing', date: '2026-10-13' },
        ],
      });
      expect(code(call(as(OMAR), 'check_refund', { order_number: 'KE-480112' }))).toBe('NO_REFUND_ON_FILE');
    });
  });

  describe('orders and deliveries', () => {
    const quote = (db: CallDatabase, order: string): ToolExecution => call(db, 'quote_delivery_reschedule', { order_number: order, new_date: '2026-10-13', slot: 'morning' });

    it('charges the delivery fee at 47 and exactly 48 hours, not at 49, and refuses on the day', () => {
      expect(data(quote(as(MARCO), 'KE-481777'))).toMatchObject({ hours_until_window: 47, fee_cents: 2499, requires_acknowledgement: true });
      expect(data(quote(as(GRETA), 'KE-481790'))).toMatchObject({ hours_until_window: 48, fee_cents: 2499 });
      expect(data(quote(as(LEAH), 'KE-481802'))).toMatchObject({ hours_until_window: 49, fee_cents: 0, requires_acknowledgement: false, script: null });
      expect(code(quote(as(VICTOR), 'KE-481815'))).toBe('DELIVERY_DAY_LOCKED');
    });

    it('names the last day a delivery can move to in words, so the agent never counts days out (issue 30)', () => {
      const late = call(as(LEAH), 'quote_delivery_reschedule', { order_number: 'KE-481802', new_date: '2026-10-24', slot: 'evening' });
      expect(late.output).toMatchObject({ ok: false, error_code: 'DATE_NOT_AVAILABLE', data: { last_day_spoken: 'Thursday, October twenty-second' } });
      const far = call(as(CARLA), 'find_bench_slots', { store_id: 'st_lakeview', earliest_date: '2026-10-23' });
      expect(far.output).toMatchObject({ ok: false, error_code: 'BEYOND_HORIZON', data: { last_day_spoken: 'Thursday, October twenty-second' } });
    });

    it('confirms a fee change only with the acknowledgement, from the stored payload, with each token failure its own code', () => {
      const db = as(MARCO);
      const first = data(quote(db, 'KE-481777'));
      const second = data(call(db, 'quote_delivery_reschedule', { order_number: 'KE-481777', new_date: '2026-10-14', slot: 'evening' }));
      expect(code(call(db, 'confirm_delivery_reschedule', { token: first.token, fee_acknowledged: true }))).toBe('TOKEN_SUPERSEDED');
      expect(code(call(db, 'confirm_delivery_reschedule', { token: 'delivery_change-9', fee_acknowledged: true }))).toBe('TOKEN_UNKNOWN');
      expect(code(call(db, 'confirm_delivery_reschedule', { token: second.token }))).toBe('ACK_REQUIRED');
      expect(rows(db, 'delivery_changes')).toEqual([]);
      expect(data(call(db, 'confirm_delivery_reschedule', { token: second.token, fee_acknowledged: true }))).toMatchObject({ fee_charged_cents: 2499, change_id: 'dlv_481777_1014_evening' });
      expect(rows(db, 'orders').find((o) => o.id === 'ord_481777')).toMatchObject({ delivery_window_start: '2026-10-14T16:00', delivery_window_end: '2026-10-14T20:00' });
      expect(rows(db, 'delivery_changes')).toMatchObject([{ old_window_start: '2026-10-10T10:00', fee_cents: 2499 }]);
      expect(code(call(db, 'confirm_delivery_reschedule', { token: second.token, fee_acknowledged: true }))).toBe('TOKEN_USED');
      const other = as(LEAH);
      expect(code(call(other, 'confirm_delivery_reschedule', { token: second.token }))).toBe('TOKEN_UNKNOWN');
    });

    it('cancels an unshipped order once, idempotently, and refuses a shipped one', () => {
      const db = as(JUNE);
      expect(data(call(db, 'cancel_order', { order_number: 'KE-482001', reason: 'changed_mind' }))).toMatchObject({ status: 'cancelled', released_cents: 24999, idempotent: false });
      const after = dumpDatabase(db.sqlite);
      expect(data(call(db, 'cancel_order', { order_number: 'KE-482001', reason: 'changed_mind' }))).toMatchObject({ idempotent: true });
      expect(dumpDatabase(db.sqlite).order_cancellations).toEqual(after.order_cancellations);
      expect(code(call(db, 'cancel_order', { order_number: 'KE-481940', reason: 'changed_mind' }))).toBe('ORDER_ALREADY_SHIPPED');
      expect(code(call(db, 'get_order', { order_number: 'KE-480112' }))).toBe('ORDER_NOT_FOUND');
    });
  });

  describe('price protection', () => {
    it('refunds a drop 10 days after delivery once, and refuses 16 days and open box', () => {
      const db = as(IRENE);
      expect(data(call(db, 'check_price_protection', { item_id: 'itm_480590_1' }))).toMatchObject({ eligible: true, difference_cents: 3000, days_since_delivery: 10, window_days: 14 });
      expect(data(call(db, 'request_price_adjustment', { item_id: 'itm_480590_1' }))).toMatchObject({ amount_cents: 3000, idempotent: false });
      expect(data(call(db, 'request_price_adjustment', { item_id: 'itm_480590_1' }))).toMatchObject({ amount_cents: 3000, idempotent: true });
      expect(rows(db, 'price_adjustments')).toHaveLength(1);
      expect(data(call(db, 'check_price_protection', { item_id: 'itm_480590_1' }))).toMatchObject({ eligible: false });
      const sam = as(SAM);
      expect(data(call(sam, 'check_price_protection', { item_id: 'itm_480240_1' }))).toMatchObject({ eligible: false, days_since_delivery: 16 });
      expect(code(call(sam, 'request_price_adjustment', { item_id: 'itm_480240_1' }))).toBe('PRICE_PROTECTION_WINDOW_CLOSED');
      expect(code(call(as(NORA), 'request_price_adjustment', { item_id: 'itm_481420_1' }))).toBe('PRICE_PROTECTION_EXCLUDED');
    });

    it('a return after a price adjustment refunds only what is left of the price', () => {
      const db = as(IRENE);
      const before = data(call(db, 'check_return_window', { item_id: 'itm_480590_1', condition: 'unopened' })) as { refund_cents: number };
      expect(data(call(db, 'request_price_adjustment', { item_id: 'itm_480590_1' }))).toMatchObject({ amount_cents: 3000 });
      expect(data(call(db, 'check_return_window', { item_id: 'itm_480590_1', condition: 'unopened' }))).toMatchObject({ refund_cents: before.refund_cents - 3000 });
      expect(data(call(db, 'quote_return_request', { item_id: 'itm_480590_1', condition: 'unopened', reason: 'changed_mind' }))).toMatchObject({ refund_cents: before.refund_cents - 3000 });
    });

    it('keeps day 14 (30 for Elite) inside and the next day outside', () => {
      const db = as(IRENE);
      setDelivered(db, 'ord_480590', daysAgo(14));
      expect(data(call(db, 'check_price_protection', { item_id: 'itm_480590_1' }))).toMatchObject({ eligible: true });
      setDelivered(db, 'ord_480590', daysAgo(15));
      expect(data(call(db, 'check_price_protection', { item_id: 'itm_480590_1' }))).toMatchObject({ eligible: false });
      const base = { paidCents: 14999, currentCents: 11999, excluded: null, alreadyAdjusted: false };
      expect(priceProtection({ ...base, tier: 'elite', daysSinceDelivery: 30 }).eligible).toBe(true);
      expect(priceProtection({ ...base, tier: 'elite', daysSinceDelivery: 31 }).eligible).toBe(false);
    });
  });

  describe('service ladder', () => {
    const coverage = (db: CallDatabase, item: string, issue: string): ToolExecution => call(db, 'check_coverage', { item_id: item, issue });

    it('walks each rung for the seeded devices', () => {
      const carla = as(CARLA);
      expect(data(coverage(carla, 'itm_458730_1', 'wont_charge'))).toMatchObject({ coverage: 'kestrel_shield', diagnostic_fee_cents: 0, repair_covered: true });
      expect(data(coverage(carla, 'itm_458730_1', 'drop_damage'))).toMatchObject({ coverage: 'paid_diagnostic', diagnostic_fee_cents: 4999 });
      expect(data(coverage(as(LUIS), 'itm_481007_1', 'drop_damage'))).toMatchObject({ coverage: 'kestrel_shield', plan_level: 'shield_plus' });
      expect(data(coverage(as(ETHAN), 'itm_470318_1', 'wont_charge'))).toMatchObject({ coverage: 'manufacturer_warranty' });
      expect(data(coverage(as(PAUL), 'itm_463391_1', 'wont_power_on'))).toMatchObject({ coverage: 'paid_diagnostic', diagnostic_fee_cents: 4999, warranty_ends_on: '2026-09-08' });
      expect(data(coverage(as(ADELE), 'itm_452208_1', 'no_sound'))).toMatchObject({ coverage: 'elite_diagnostic', diagnostic_fee_cents: 0 });
    });

    it('stops a recall and a swelling battery with a safety script and books neither', () => {
      const rosa = as(ROSA);
      const recall = coverage(rosa, 'itm_476020_1', 'overheating');
      expect([code(recall), typeof (recall.output.data as Args).script]).toEqual(['RECALL_STOP', 'string']);
      expect(code(call(rosa, 'book_service_appointment', { slot_id: 'bs_lakeview_1009_1300', item_id: 'itm_476020_1', issue: 'overheating', fee_acknowledged: true }))).toBe('RECALL_STOP');
      const ethan = as(ETHAN);
      expect(code(coverage(ethan, 'itm_470318_1', 'battery_swelling'))).toBe('BATTERY_HAZARD_STOP');
      expect(code(call(ethan, 'book_service_appointment', { slot_id: 'bs_lakeview_1009_1300', item_id: 'itm_470318_1', issue: 'battery_swelling' }))).toBe('BATTERY_HAZARD_STOP');
      expect([...rows(rosa, 'service_appointments'), ...rows(ethan, 'service_appointments')]).toEqual([]);
    });

    it('covers the warranty anniversary and not the day after', () => {
      const base = { recalled: false, issue: 'wont_charge' as const, today: '2026-10-08', plan: null, tier: 'standard' as const };
      expect(serviceLadder({ ...base, deliveredOn: '2025-10-08' }).coverage).toBe('manufacturer_warranty');
      expect(serviceLadder({ ...base, deliveredOn: '2025-10-07' }).coverage).toBe('paid_diagnostic');
      expect(serviceLadder({ ...base, deliveredOn: '2026-01-01', issue: 'cracked_screen' }).coverage).toBe('paid_diagnostic');
    });

    it('books the first slot, cancels it for free, and both repeat idempotently', () => {
      const db = as(CARLA);
      expect(code(call(db, 'find_bench_slots', { store_id: 'st_evanston' }))).toBe('NO_BENCH_AT_STORE');
      const slots = data(call(db, 'find_bench_slots', { store_id: 'Lakeview' })).slots as Args[];
      expect(slots.map((s) => s.slot_id)).toEqual(['bs_lakeview_1009_1300', 'bs_lakeview_1009_1600', 'bs_lakeview_1010_1000']);
      const booked = data(call(db, 'book_service_appointment', { slot_id: 'bs_lakeview_1009_1300', item_id: 'itm_458730_1', issue: 'wont_charge' }));
      expect(booked).toMatchObject({ appointment_id: 'svc_lakeview_1009_1300', diagnostic_fee_cents: 0, coverage: 'kestrel_shield', idempotent: false });
      expect(data(call(db, 'book_service_appointment', { slot_id: 'bs_lakeview_1009_1300', item_id: 'itm_458730_1', issue: 'wont_charge' }))).toMatchObject({ idempotent: true });
      expect((data(call(db, 'find_bench_slots', { store_id: 'st_lakeview' })).slots as Args[])[0]?.slot_id).toBe('bs_lakeview_1009_1600');
      expect(data(call(db, 'cancel_service_appointment', { appointment_id: 'svc_lakeview_1009_1300' }))).toMatchObject({ status: 'cancelled', idempotent: false });
      expect(data(call(db, 'cancel_service_appointment', { appointment_id: 'svc_lakeview_1009_1300' }))).toMatchObject({ idempotent: true });
      expect(rows(db, 'service_appointments')).toMatchObject([{ id: 'svc_lakeview_1009_1300', status: 'cancelled', diagnostic_fee_cents: 0 }]);
      expect(rows(db, 'bench_slots').find((s) => s.id === 'bs_lakeview_1009_1300')).toMatchObject({ status: 'open' });
    });

    it('books a paid diagnostic only after the fee is acknowledged', () => {
      const db = as(PAUL);
      const args = { slot_id: 'bs_naperville_1009_1000', item_id: 'itm_463391_1', issue: 'wont_power_on' };
      expect(code(call(db, 'book_service_appointment', args))).toBe('ACK_REQUIRED');
      expect(rows(db, 'service_appointments')).toEqual([]);
      expect(data(call(db, 'book_service_appointment', { ...args, fee_acknowledged: true }))).toMatchObject({ diagnostic_fee_cents: 4999 });
    });
  });

  describe('membership', () => {
    it('prorates by whole months, rounds half up, and refunds in full within 14 days of joining', () => {
      expect(data(call(as(ANA), 'check_membership'))).toMatchObject({ tier: 'circle', months_left: 7, upgrade_cents: 8167, cancel_refund_cents: 2333 });
      expect(data(call(as(ZOE), 'check_membership'))).toMatchObject({ days_since_joining: 10, cancel_refund_cents: 3999, upgrade_cents: 12833 });
      expect(data(call(as(ADELE), 'check_membership'))).toMatchObject({ tier: 'elite', months_left: 1, upgrade_cents: null, cancel_refund_cents: 1500 });
      const on = (today: string) => membershipMoney({ tier: 'circle', paidCents: 3999, joinedOn: '2026-09-24', renewsOn: '2027-09-24', today });
      expect(on('2026-10-08')).toMatchObject({ days_since_joining: 14, refund_cents: 3999 });
      expect(on('2026-10-09')).toMatchObject({ days_since_joining: 15, months_left: 11, refund_cents: 3666 });
      expect(roundHalfUp(3999 * 6, 12)).toBe(2000); // 1999.5 rounds up
      expect(roundHalfUp(17999 * 6, 12)).toBe(9000);
      expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    });

    it('makes one save offer per call and applies it when accepted', () => {
      const db = as(ANA);
      const first = data(call(db, 'quote_membership_change', { action: 'cancel' }));
      expect(first).toMatchObject({ amount_cents: 2333, save_offer: { months_free: 2, new_renews_on: '2027-07-08' } });
      const second = data(call(db, 'quote_membership_change', { action: 'cancel' }));
      expect(second.save_offer).toBeNull();
      expect(code(call(db, 'confirm_membership_change', { token: second.token, decision: 'accept_save_offer' }))).toBe('SAVE_OFFER_NOT_MADE');
      const third = data(call(db, 'quote_membership_change', { action: 'cancel' }));
      expect(code(call(db, 'confirm_membership_change', { token: first.token, decision: 'accept_save_offer' }))).toBe('TOKEN_SUPERSEDED');
      expect(third.save_offer).toBeNull();
      const db2 = as(ANA);
      const q = data(call(db2, 'quote_membership_change', { action: 'cancel' }));
      expect(data(call(db2, 'confirm_membership_change', { token: q.token, decision: 'accept_save_offer' }))).toMatchObject({ outcome: 'save_offer_accepted', renews_on: '2027-07-08' });
      expect(rows(db2, 'memberships').find((m) => m.id === 'mem_ana_silva')).toMatchObject({ status: 'active', renews_on: '2027-07-08' });
    });

    it('cancels and upgrades only with terms acknowledged', () => {
      const zoe = as(ZOE);
      const q = data(call(zoe, 'quote_membership_change', { action: 'cancel' }));
      expect(code(call(zoe, 'confirm_membership_change', { token: q.token, decision: 'proceed' }))).toBe('ACK_REQUIRED');
      expect(data(call(zoe, 'confirm_membership_change', { token: q.token, decision: 'proceed', terms_acknowledged: true }))).toMatchObject({ outcome: 'cancelled', amount_cents: 3999 });
      expect(rows(zoe, 'refunds')).toMatchObject([{ source: 'membership', amount_cents: 3999 }]);
      const ana = as(ANA);
      const up = data(call(ana, 'quote_membership_change', { action: 'upgrade' }));
      expect(up).toMatchObject({ amount_cents: 8167, save_offer: null });
      expect(data(call(ana, 'confirm_membership_change', { token: up.token, decision: 'proceed', terms_acknowledged: true }))).toMatchObject({ outcome: 'upgraded', amount_cents: 8167 });
      expect(rows(ana, 'memberships').find((m) => m.id === 'mem_ana_silva')).toMatchObject({ tier: 'elite', paid_cents: 12166 });
      expect(code(call(as(ADELE), 'quote_membership_change', { action: 'upgrade' }))).toBe('ALREADY_ELITE');
      expect(code(call(as(OMAR), 'check_membership'))).toBe('NO_MEMBERSHIP');
    });
  });

  describe('seed rows exactly on each edge', () => {
    it('keeps the last day of every return window inside: watch at 14, standard 21, Circle 30, Elite 45', () => {
      const window = (person: Person, item: string, condition: string): Args => data(call(as(person), 'check_return_window', { item_id: item, condition }));
      expect(window(LENA, 'itm_480418_1', 'opened')).toMatchObject({ returnable: true, window_days: 14, days_used: 14, days_left: 0, days_over: 0, fee_cents: 4000, refund_cents: 25999 });
      expect(window(OWEN, 'itm_479874_1', 'unopened')).toMatchObject({ returnable: true, window_days: 21, days_used: 21, days_left: 0, days_over: 0, fee_cents: 0, refund_cents: 24999 });
      expect(window(MINA, 'itm_478106_1', 'opened')).toMatchObject({ returnable: true, window_days: 30, days_used: 30, days_left: 0, days_over: 0, fee_cents: 0, refund_cents: 29999 });
      expect(window(FELIX, 'itm_476940_1', 'opened')).toMatchObject({ returnable: true, window_days: 45, days_used: 45, days_left: 0, days_over: 0, fee_cents: 0, refund_cents: 119999 });
      const db = as(LENA);
      expect(data(call(db, 'quote_return_request', { item_id: 'itm_480418_1', condition: 'opened', reason: 'changed_mind' }))).toMatchObject({ fee_cents: 4000, refund_cents: 25999, requires_acknowledgement: true });
    });

    it('keeps day 14 of price protection (30 for Elite) inside for the seeded drops', () => {
      const dana = as(DANA);
      expect(data(call(dana, 'check_price_protection', { item_id: 'itm_480421_1' }))).toMatchObject({ eligible: true, days_since_delivery: 14, window_days: 14, difference_cents: 3000 });
      expect(data(call(dana, 'request_price_adjustment', { item_id: 'itm_480421_1' }))).toMatchObject({ amount_cents: 3000, idempotent: false });
      const hugo = as(HUGO);
      expect(data(call(hugo, 'check_price_protection', { item_id: 'itm_478111_1' }))).toMatchObject({ eligible: true, days_since_delivery: 30, window_days: 30, difference_cents: 3000 });
      expect(data(call(hugo, 'request_price_adjustment', { item_id: 'itm_478111_1' }))).toMatchObject({ amount_cents: 3000, idempotent: false });
    });

    it('covers a fault on the warranty anniversary itself', () => {
      expect(data(call(as(GLORIA), 'check_coverage', { item_id: 'itm_464870_1', issue: 'wont_power_on' }))).toMatchObject({ coverage: 'manufacturer_warranty', diagnostic_fee_cents: 0, warranty_ends_on: '2026-10-08' });
    });

    it('refunds a membership in full on day 14 after joining', () => {
      const db = as(THEO);
      expect(data(call(db, 'check_membership'))).toMatchObject({ tier: 'circle', days_since_joining: 14, cancel_refund_cents: 3999 });
      expect(data(call(db, 'quote_membership_change', { action: 'cancel' }))).toMatchObject({ amount_cents: 3999 });
    });
  });

  describe('seed rows one day either side of each edge', () => {
    it('closes the Circle 30 and Elite 45 day return windows on the day after', () => {
      const window = (person: Person, item: string): Args => data(call(as(person), 'check_return_window', { item_id: item, condition: 'opened' }));
      expect(window(RACHEL, 'itm_478095_1')).toMatchObject({ returnable: false, window_days: 30, days_used: 31, days_left: 0, days_over: 1, fee_cents: 0, refund_cents: 0 });
      expect(window(SIMON, 'itm_476933_1')).toMatchObject({ returnable: false, window_days: 45, days_used: 46, days_left: 0, days_over: 1, fee_cents: 0, refund_cents: 0 });
      expect(code(call(as(RACHEL), 'quote_return_request', { item_id: 'itm_478095_1', condition: 'opened', reason: 'changed_mind' }))).toBe('RETURN_WINDOW_CLOSED');
      expect(code(call(as(SIMON), 'quote_return_request', { item_id: 'itm_476933_1', condition: 'opened', reason: 'changed_mind' }))).toBe('RETURN_WINDOW_CLOSED');
    });

    it('keeps Elite price protection open on day 29 and closes it on day 31', () => {
      const iris = as(IRIS);
      expect(data(call(iris, 'check_price_protection', { item_id: 'itm_478240_1' }))).toMatchObject({ eligible: true, days_since_delivery: 29, window_days: 30, difference_cents: 3000 });
      expect(data(call(iris, 'request_price_adjustment', { item_id: 'itm_478240_1' }))).toMatchObject({ amount_cents: 3000, idempotent: false });
      const martin = as(MARTIN);
      expect(data(call(martin, 'check_price_protection', { item_id: 'itm_478097_1' }))).toMatchObject({ eligible: false, days_since_delivery: 31, window_days: 30, difference_cents: 3000 });
      expect(code(call(martin, 'request_price_adjustment', { item_id: 'itm_478097_1' }))).toBe('PRICE_PROTECTION_WINDOW_CLOSED');
      expect(rows(martin, 'price_adjustments')).toEqual([]);
    });

    it('covers a fault the day before the warranty anniversary and charges the diagnostic the day after', () => {
      expect(data(call(as(ELENA), 'check_coverage', { item_id: 'itm_464905_1', issue: 'wont_power_on' }))).toMatchObject({ coverage: 'manufacturer_warranty', diagnostic_fee_cents: 0, warranty_ends_on: '2026-10-09' });
      expect(data(call(as(DEREK), 'check_coverage', { item_id: 'itm_464861_1', issue: 'wont_power_on' }))).toMatchObject({ coverage: 'paid_diagnostic', diagnostic_fee_cents: 4999, warranty_ends_on: '2026-10-07' });
    });

    it('prorates a membership cancelled on day 15 after joining', () => {
      const db = as(KIRA);
      expect(data(call(db, 'check_membership'))).toMatchObject({ tier: 'circle', days_since_joining: 15, months_left: 11, cancel_refund_cents: 3666 });
      expect(data(call(db, 'quote_membership_change', { action: 'cancel' }))).toMatchObject({ amount_cents: 3666 });
    });
  });

  describe('fraud desk', () => {
    it('answers a scam caller with no matching charge, confirms a real one, and needs no verification', () => {
      const db = fresh();
      const scam = call(db, 'check_charge', { amount_cents: '$649.99' });
      expect([code(scam), String((scam.output.data as Args).script)]).toEqual(['CHARGE_NOT_FOUND', expect.stringContaining('never asks for gift cards')]);
      const real = data(call(db, 'check_charge', { amount_cents: 149999 }));
      expect(real).toMatchObject({ found: true, descriptor: 'KESTREL ELECTRONICS OAK PARK IL', posted_on: '2026-10-03' });
      expect(data(call(db, 'check_contact_claim', { calling_number: '1-800-555-0142', claimed_reason: 'delivery_scheduling' }))).toMatchObject({ genuine: true });
      expect(code(call(db, 'check_contact_claim', { calling_number: '+18005550142', claimed_reason: 'gift_card_payment' }))).toBe('NO_CONTACT_ON_RECORD');
    });

    it('never gives an unverified caller the card ending, which is half of what verification asks for', () => {
      const db = fresh();
      for (const amount_cents of [79999, 109999, 149999, 3999]) {
        const out = data(call(db, 'check_charge', { amount_cents }));
        expect(out).not.toHaveProperty('card');
        const spoken = JSON.stringify(out);
        for (const last4 of ['4417', '8034', '4481', '5108']) expect(spoken).not.toContain(last4);
      }
    });

    it('reports a scam once, with no field for card or bank details', () => {
      const db = fresh();
      const args = { channel: 'phone_call', calling_number: '+14695550113', claimed_to_be: 'kestrel_fraud_team', money_lost_cents: 0, summary: 'Caller said my account was locked.' };
      expect(data(call(db, 'report_scam', args))).toMatchObject({ report_id: 'scam_phone_call', idempotent: false });
      expect(data(call(db, 'report_scam', args))).toMatchObject({ idempotent: true });
      expect(rows(db, 'scam_reports')).toHaveLength(1);
      expect(Object.keys(loadedPack().catalog.get('report_scam')?.input.shape ?? {}).filter((k) => /card|bank|account|routing|code/.test(k))).toEqual([]);
      const other = fresh();
      // A field the schema does not declare is refused by name, so a card number is never stored.
      expect(call(other, 'report_scam', { ...args, card_number: '4111111111111111' }).output).toMatchObject({ ok: false, error_code: 'INVALID_ARGUMENTS', data: { invalid_fields: ['card_number'] } });
      expect(JSON.stringify(rows(other, 'scam_reports'))).not.toContain('4111');
    });
  });

  describe('reception', () => {
    it('reads policies with their numbers and answers NOT_ON_FILE for what Kestrel does not offer', () => {
      const db = fresh();
      expect(String(data(call(db, 'explain_policy', { topic: 'return policy' })).script)).toContain('within twenty-one days of delivery, thirty days for Kestrel Circle members');
      expect(code(call(db, 'explain_policy', { topic: 'trade_in' }))).toBe('NOT_ON_FILE');
      expect(data(call(db, 'list_stores', { store_id: 'Evanston' })).stores).toEqual({ st_evanston: expect.objectContaining({ name: 'Evanston', has_bench: false }) });
      // Keyed by store id, so the store asked about reads the same from an unfiltered call.
      const all = data(call(db, 'list_stores', {})).stores as Args;
      expect(Object.keys(all).sort()).toEqual(['st_evanston', 'st_lakeview', 'st_naperville', 'st_oak_park']);
      expect(all.st_evanston).toMatchObject({ name: 'Evanston', has_bench: false });
    });
  });
});
