import { describe, expect, it } from 'vitest';
import type { CallDatabase } from '../../../src/store/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';

/**
 * What Fennwood's tools give the agent to say, as the audit players found it wanting
 * (packs/finance/README.md, "Task audit decisions"): dates that cannot be told apart, a balance
 * that did not add up, an address in digits, a limit only in words, a lock promised for a closed
 * card and a reason left undecided.
 */
describe('finance tool outputs an agent reads aloud', () => {
  const { fresh, call, data, code } = usePackTools('finance');
  const asMember = (full_name: string, date_of_birth: string): CallDatabase => {
    const db = fresh();
    expect(call(db, 'verify_member', { full_name, date_of_birth }).output.ok).toBe(true);
    return db;
  };

  it('says the year of a date outside the clock year, and only then', () => {
    const refused = call(asMember('Samuel Price', '1958-07-04'), 'check_fee_refund', { transaction_id: 'txn_samuel_0914_odfee' }).output;
    expect(refused).toMatchObject({ ok: false, error_code: 'FEE_REFUND_USED' });
    const dates = (refused as { data: { last_refund: { spoken: string }; next_eligible: { spoken: string } } }).data;
    expect(dates.last_refund.spoken).toBe('Thursday, November twentieth, twenty twenty-five');
    expect(dates.next_eligible.spoken).toBe('Friday, November twentieth');
  });

  it('gives the new available balance after a fee refund, the figure the agent said before it', () => {
    const db = asMember('Hannah Whitaker', '1984-03-22');
    expect(data(call(db, 'check_fee_refund', { transaction_id: 'txn_hannah_0930_odfee' }))).toMatchObject({ eligible: true });
    const refund = data(call(db, 'request_fee_refund', { transaction_id: 'txn_hannah_0930_odfee' }));
    // Seeded checking: balance 2,340.18, available 2,294.18; the fee was 32.00.
    expect(refund).toMatchObject({ new_balance: { cents: 237218 }, new_available: { cents: 232618, spoken: 'two thousand three hundred twenty-six dollars and eighteen cents' } });
  });

  it('says a branch address with its house number in words', () => {
    const branches = data(call(fresh(), 'list_branches', {})) as { branches: Record<string, { address: string; address_spoken: string }> };
    expect(branches.branches.br_downtown).toMatchObject({ address: '220 East Third Street, Dayton, Ohio', address_spoken: 'two twenty East Third Street, Dayton, Ohio' });
    expect(branches.branches.br_oakwood?.address_spoken).toBe('thirty-one Park Avenue, Oakwood, Ohio');
    expect(branches.branches.br_kettering?.address_spoken).toBe('eighteen hundred Wilmington Pike, Kettering, Ohio');
  });

  it('returns the new-payee limit as data beside its script', () => {
    const db = asMember('Hannah Whitaker', '1984-03-22');
    expect(call(db, 'send_one_time_code', {}).output.ok).toBe(true);
    expect(call(db, 'check_one_time_code', { code: '623681' }).output.ok).toBe(true);
    const payee = data(call(db, 'add_payee', { name: 'Nadia Brooks', kind: 'person', account_last4: '4521' }));
    expect(payee).toMatchObject({ limit: { cents: 50000, spoken: 'five hundred dollars' } });
    expect(String(payee.script)).toContain('five hundred dollars');
  });

  it('promises to lock the card of an unauthorized charge only while that card is active', () => {
    const quoteScript = (db: CallDatabase) => String(data(call(db, 'quote_dispute', { transaction_id: 'txn_maya_1011_sunrise', reason: 'unauthorized' })).script);
    expect(quoteScript(asMember('Maya Collins', '1991-11-30'))).toContain('will be locked when the claim opens');
    const replaced = asMember('Maya Collins', '1991-11-30');
    const { token } = data(call(replaced, 'quote_card_replacement', { card_last4: '6048', reason: 'stolen', delivery: 'standard' }));
    expect(data(call(replaced, 'confirm_card_replacement', { token }))).toMatchObject({ old_card_status: 'closed' });
    expect(quoteScript(replaced)).not.toContain('locked');
  });

  it('says a wrong-amount dispute is for the whole charge, and a duplicate one for the later copy whichever was named', () => {
    const wrong = data(call(asMember('Maya Collins', '1991-11-30'), 'quote_dispute', { transaction_id: 'txn_maya_1012_nimbus', reason: 'wrong_amount' }));
    expect(wrong).toMatchObject({ amount: { cents: 64000 } });
    expect(String(wrong.script)).toContain('the whole charge of six hundred forty dollars; the review settles what you should have paid');
    for (const named of ['txn_hannah_1009_books_a', 'txn_hannah_1009_books_b']) {
      const db = asMember('Hannah Whitaker', '1984-03-22');
      const twice = data(call(db, 'quote_dispute', { transaction_id: named, reason: 'duplicate' }));
      expect(String(twice.script)).toContain('the second of the two charges, forty-two dollars and fifteen cents');
      expect(data(call(db, 'confirm_dispute', { token: twice.token }))).toMatchObject({ dispute_id: expect.stringContaining('books_b') });
    }
  });

  it('names the one reason a payment goes out later: the cut-off, not "or not a business day"', () => {
    const quote = call(asMember('Hannah Whitaker', '1984-03-22'), 'quote_payment', { from_account: 'checking', payee_id: 'pay_hannah_power', amount_cents: 7500, send_on: '2026-10-13' });
    expect(code(quote)).toBeUndefined();
    const script = String(data(quote).script);
    expect(script.startsWith("Because it is past today's three p.m. cut-off for bill payments, ")).toBe(true);
    expect(script).not.toContain('business day');
  });

  it('moves a bill asked for today at 3:40 p.m. and names its cut-off, but not a payment to a person', () => {
    const db = asMember('Samuel Price', '1958-07-04');
    const toRuth = data(call(db, 'quote_payment', { from_account: 'checking', payee_id: 'pay_samuel_daughter', amount_cents: 5000, send_on: '2026-10-13' }));
    expect(toRuth).toMatchObject({ moved_by_cutoff: false, send_on: { date: '2026-10-13' } });
    expect(String(toRuth.script)).not.toContain('cut-off');
    const water = data(call(db, 'quote_payment', { from_account: 'checking', payee_id: 'pay_samuel_water', amount_cents: 5000, send_on: '2026-10-13' }));
    expect(water).toMatchObject({ moved_by_cutoff: true, send_on: { date: '2026-10-14' } });
    expect(String(water.script)).toContain('three p.m. cut-off for bill payments');
  });

  it('says, in the answer to a change of a scheduled payment, the date it really goes out and the cut-off that moved it', () => {
    const db = asMember('Samuel Price', '1958-07-04');
    const moved = data(call(db, 'update_scheduled_payment', { payment_id: 'pmt_samuel_water_1113', send_on: '2026-10-13' }));
    expect(moved).toMatchObject({ moved_by_cutoff: true, payment: { send_on: { date: '2026-10-14' } } });
    expect(String(moved.script)).toBe("Because it is past today's three p.m. cut-off for bill payments, sixty-four dollars and twelve cents to Dayton Water Works goes out on Wednesday, October fourteenth. Is that day all right?");
    const kept = data(call(db, 'update_scheduled_payment', { payment_id: 'pmt_samuel_water_1113', send_on: '2026-10-20' }));
    expect(String(kept.script)).toBe('Sixty-four dollars and twelve cents to Dayton Water Works goes out on Tuesday, October twentieth.');
  });
});
