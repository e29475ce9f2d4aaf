import type { PackDb } from '../../src/packs/index.ts';
import { benchSlots, charges, customers, memberships, orderItems, orders, outboundContacts, policies, products, protectionPlans, stores } from './schema.ts';

/**
 * Kestrel Electronics' seed: reference tables, the customers whose records set each policy trap,
 * and a small Tech Bench slot grid. Each row's comment names the trap it sets and its side of the
 * threshold. The clock is Thursday 2026-10-08 11:00 (America/Chicago). Artifact tables start empty.
 * Self-contained on purpose: the template hash covers this file and the migrations only.
 */

const SEEDED_AT = '2024-01-15T09:00';

// id, name, address, phone, weekday hours, weekend hours, Tech Bench
const STORES = [
  ['st_lakeview', 'Lakeview', '3150 North Clark Street, Chicago, Illinois 60657', '+17735550100', '10 a.m. to 9 p.m.', 'Saturday 10 a.m. to 8 p.m., Sunday 11 a.m. to 6 p.m.', 1],
  ['st_naperville', 'Naperville', '1750 West Ogden Avenue, Naperville, Illinois 60540', '+16305550100', '10 a.m. to 9 p.m.', 'Saturday 10 a.m. to 8 p.m., Sunday 11 a.m. to 6 p.m.', 1],
  ['st_evanston', 'Evanston', '1620 Sherman Avenue, Evanston, Illinois 60201', '+18475550100', '10 a.m. to 8 p.m.', 'Saturday 10 a.m. to 6 p.m., closed Sunday', 0], // no Tech Bench
  ['st_oak_park', 'Oak Park', '1120 Lake Street, Oak Park, Illinois 60301', '+17085550100', '10 a.m. to 8 p.m.', 'Saturday 10 a.m. to 6 p.m., Sunday noon to 5 p.m.', 1],
] as const;

// sku, name, category, activatable, hazardous, recalled, restock class, current price, open box, clearance, marketplace seller
const PRODUCTS = [
  ['PH-NOVA14', 'Nova 14 phone', 'phone', 1, 0, 0, 'activation', 79999, 0, 0, null], // activatable: 14 days for everyone, $40 opened
  ['WT-TERN', 'Tern cellular watch', 'watch', 1, 0, 0, 'activation', 29999, 0, 0, null],
  ['DR-SKYPRO', 'Skylark Pro drone', 'drone', 0, 0, 0, 'percent', 109999, 0, 0, null], // 12% opened, 0 for Elite
  ['HP-QUILL', 'Quill noise cancelling headphones', 'headphones', 0, 0, 0, 'none', 24999, 0, 0, null],
  ['SP-HARBOR', 'Harbor Max speaker', 'speaker', 0, 0, 0, 'none', 29999, 0, 0, null],
  ['SP-HMINI', 'Harbor Mini speaker', 'speaker', 0, 0, 0, 'none', 11999, 0, 0, null], // now $119.99; bought at $149.99
  ['LN-FC50', 'Fieldcraft 50 millimeter lens', 'camera', 0, 0, 0, 'percent', 44999, 0, 0, 'Northfield Optics'], // marketplace seller
  ['PB-VOLT20', 'Voltway 20K power bank', 'power_bank', 0, 1, 1, 'none', 4999, 0, 0, null], // recalled, lithium: store drop off
  ['PB-VOLT10', 'Voltway 10K power bank', 'power_bank', 0, 1, 0, 'none', 2999, 0, 0, null], // not recalled, lithium: store drop off only
  ['LT-ATLAS15', 'Atlas 15 laptop', 'laptop', 0, 0, 0, 'none', 119999, 0, 0, null],
  ['LT-ATLAS14-OB', 'Atlas 14 laptop, open box', 'laptop', 0, 0, 0, 'none', 64999, 1, 0, null], // open box: no price protection
  ['TV-VISTA65', 'Vista 65 inch TV', 'tv', 0, 0, 0, 'none', 149999, 0, 0, null],
  ['TV-VISTA55', 'Vista 55 inch TV', 'tv', 0, 0, 0, 'none', 89999, 0, 0, null],
  ['TB-NOVA11', 'Nova Tab 11 tablet, Wi-Fi', 'tablet', 0, 0, 0, 'none', 49999, 0, 0, null], // Wi-Fi only: not activatable
  ['AC-CABLE', 'USB-C charging cable', 'accessory', 0, 0, 0, 'none', 1999, 0, 1, null], // clearance
] as const;

// id, name, phone, email, ZIP, card last four, home store
const CUSTOMERS = [
  ['cus_adele_voss', 'Adele Voss', '+18475550177', 'adele.voss@example.com', '60201', '6651', 'st_evanston'], // Circle Elite: opened drone without fee; speaker out of warranty, free diagnostic
  ['cus_ana_silva', 'Ana Silva', '+13125550126', 'ana.silva@example.com', '60622', '5108', 'st_lakeview'], // Circle, five months in; headphones 22 days after delivery: inside 30
  ['cus_ben_adler', 'Ben Adler', '+16305550193', 'ben.adler@example.com', '60187', '7742', 'st_naperville'], // marketplace lens: return goes to the seller
  ['cus_carla_mendes', 'Carla Mendes', '+17735550158', 'carla.mendes@example.com', '60657', '3306', 'st_lakeview'], // Shield laptop (two years, no accidental)
  ['cus_derek_olsen', 'Derek Olsen', '+16305550173', 'derek.olsen@example.com', '60532', '9186', 'st_naperville'], // tablet delivered a year and a day ago: the warranty ended yesterday, $49.99 diagnostic
  ['cus_dana_whitfield', 'Dana Whitfield', '+13125550115', 'dana.whitfield@example.com', '60616', '6924', 'st_lakeview'], // price drop exactly 14 days after delivery: the last day is inside
  ['cus_elena_marsh', 'Elena Marsh', '+17735550153', 'elena.marsh@example.com', '60639', '4728', 'st_lakeview'], // tablet delivered a year less a day ago: the warranty ends tomorrow, free diagnostic
  ['cus_ethan_cole', 'Ethan Cole', '+13125550188', 'ethan.cole@example.com', '60611', '9023', 'st_lakeview'], // laptop in warranty: a swollen battery stops the ladder
  ['cus_felix_grant', 'Felix Grant', '+18475550139', 'felix.grant@example.com', '60203', '2047', 'st_evanston'], // Circle Elite, laptop delivered exactly 45 days ago: the last day is inside
  ['cus_gloria_reyes', 'Gloria Reyes', '+17735550129', 'gloria.reyes@example.com', '60647', '8150', 'st_lakeview'], // tablet delivered exactly a year ago: the anniversary is still under warranty
  ['cus_greta_lund', 'Greta Lund', '+17085550131', 'greta.lund@example.com', '60305', '2718', 'st_oak_park'], // delivery window exactly 48 hours away: pays the fee
  ['cus_hugo_brandt', 'Hugo Brandt', '+16305550181', 'hugo.brandt@example.com', '60565', '4386', 'st_naperville'], // Circle Elite, price drop exactly 30 days after delivery: the last day is inside
  ['cus_irene_wolfe', 'Irene Wolfe', '+17735550147', 'irene.wolfe@example.com', '60613', '5562', 'st_lakeview'], // price drop 10 days after delivery: eligible
  ['cus_iris_delgado', 'Iris Delgado', '+16305550135', 'iris.delgado@example.com', '60563', '7415', 'st_naperville'], // Circle Elite, price drop 29 days after delivery: one day inside 30
  ['cus_june_harlow', 'June Harlow', '+18475550150', 'june.harlow@example.com', '60202', '6608', 'st_evanston'], // one unshipped and one shipped order
  ['cus_kira_sandoval', 'Kira Sandoval', '+13125550138', 'kira.sandoval@example.com', '60608', '6042', 'st_lakeview'], // Circle member of 15 days: one day past the full refund, prorated
  ['cus_lena_brooks', 'Lena Brooks', '+17735550184', 'lena.brooks@example.com', '60640', '3817', 'st_lakeview'], // watch delivered exactly 14 days ago: the last day is inside, $40 opened
  ['cus_leah_stein', 'Leah Stein', '+13125550109', 'leah.stein@example.com', '60610', '3075', 'st_lakeview'], // delivery window 49 hours away: free change
  ['cus_luis_ortega', 'Luis Ortega', '+16305550118', 'luis.ortega@example.com', '60540', '8034', 'st_naperville'], // standard, opened drone: 12% restocking; Shield Plus on it
  ['cus_marco_diaz', 'Marco Diaz', '+17085550172', 'marco.diaz@example.com', '60302', '4481', 'st_oak_park'], // delivery window 47 hours away: $24.99
  ['cus_maria_lopez', 'Maria Lopez', '+17735550193', 'maria.lopez@example.com', '60618', '4920', 'st_lakeview'], // two returns: one refund issued, one processing
  ['cus_martin_hale', 'Martin Hale', '+17085550148', 'martin.hale@example.com', '60302', '2579', 'st_oak_park'], // Circle Elite, price drop 31 days after delivery: one day past 30
  ['cus_mina_castillo', 'Mina Castillo', '+17085550125', 'mina.castillo@example.com', '60304', '7163', 'st_oak_park'], // Circle, speaker delivered exactly 30 days ago: the last day is inside
  ['cus_nora_quinn', 'Nora Quinn', '+16305550144', null, '60563', '1290', 'st_naperville'], // open box laptop with a price drop: excluded; no email
  ['cus_omar_haddad', 'Omar Haddad', '+13125550141', 'omar.haddad@example.com', '60614', '4417', 'st_lakeview'], // phone delivered 12 days ago: inside 14, $40 opened
  ['cus_owen_hart', 'Owen Hart', '+16305550152', 'owen.hart@example.com', '60564', '5290', 'st_naperville'], // standard, headphones delivered exactly 21 days ago: the last day is inside
  ['cus_paul_fischer', 'Paul Fischer', '+16305550127', 'paul.fischer@example.com', '60517', '8812', 'st_naperville'], // tablet 13 months old, no plan: $49.99 diagnostic
  ['cus_priya_raman', 'Priya Raman', '+17735550162', 'priya.raman@example.com', '60657', '2290', 'st_lakeview'], // Circle, phone delivered 16 days ago: past 14
  ['cus_rachel_ambrose', 'Rachel Ambrose', '+17735550119', 'rachel.ambrose@example.com', '60626', '5831', 'st_lakeview'], // Circle, speaker delivered 31 days ago: one day past 30
  ['cus_rosa_kim', 'Rosa Kim', '+17735550135', 'rosa.kim@example.com', '60625', '1856', 'st_lakeview'], // recalled power bank
  ['cus_sam_okafor', 'Sam Okafor', '+13125550176', 'sam.okafor@example.com', '60615', '7305', 'st_lakeview'], // price drop 16 days after delivery: past 14
  ['cus_theo_nakamura', 'Theo Nakamura', '+13125550197', 'theo.nakamura@example.com', '60654', '1538', 'st_lakeview'], // Circle member of exactly 14 days: day 14 still refunds in full
  ['cus_simon_kovac', 'Simon Kovac', '+18475550112', 'simon.kovac@example.com', '60201', '3962', 'st_evanston'], // Circle Elite, laptop delivered 46 days ago: one day past 45
  ['cus_tom_becker', 'Tom Becker', '+17735550104', 'tom.becker@example.com', '60618', '3329', 'st_lakeview'], // standard, headphones 22 days after delivery: one day past 21
  ['cus_victor_nash', 'Victor Nash', '+16305550166', 'victor.nash@example.com', '60515', '2184', 'st_naperville'], // delivery window today: no change
  ['cus_zoe_turner', 'Zoe Turner', '+13125550163', 'zoe.turner@example.com', '60607', '9471', 'st_lakeview'], // Circle member of 10 days: full refund; power bank goes back at a store
] as const;

// order number digits, customer, placed, status, fulfilment, shipped, delivered, window start, window end
const ORDERS = [
  ['452208', 'cus_adele_voss', '2025-06-10', 'delivered', 'ship', '2025-06-12', '2025-06-15', null, null], // speaker, out of warranty
  ['458730', 'cus_carla_mendes', '2025-03-06', 'delivered', 'ship', '2025-03-07', '2025-03-10', null, null], // Shield laptop
  ['463391', 'cus_paul_fischer', '2025-09-03', 'delivered', 'ship', '2025-09-05', '2025-09-08', null, null], // tablet, warranty ended 2026-09-08
  ['464861', 'cus_derek_olsen', '2025-10-03', 'delivered', 'ship', '2025-10-05', '2025-10-07', null, null], // tablet, warranty ended 2026-10-07: yesterday
  ['464870', 'cus_gloria_reyes', '2025-10-04', 'delivered', 'ship', '2025-10-06', '2025-10-08', null, null], // tablet, warranty ends 2026-10-08: today, still covered
  ['464905', 'cus_elena_marsh', '2025-10-05', 'delivered', 'ship', '2025-10-07', '2025-10-09', null, null], // tablet, warranty ends 2026-10-09: tomorrow
  ['470318', 'cus_ethan_cole', '2026-01-10', 'delivered', 'ship', '2026-01-12', '2026-01-14', null, null], // laptop in warranty
  ['476020', 'cus_rosa_kim', '2026-07-08', 'delivered', 'ship', '2026-07-09', '2026-07-12', null, null], // recalled power bank
  ['476933', 'cus_simon_kovac', '2026-08-18', 'delivered', 'ship', '2026-08-19', '2026-08-23', null, null], // laptop, 46 days: Elite, one day over
  ['476940', 'cus_felix_grant', '2026-08-19', 'delivered', 'ship', '2026-08-20', '2026-08-24', null, null], // laptop, 45 days: Elite, exactly on the edge
  ['478095', 'cus_rachel_ambrose', '2026-09-02', 'delivered', 'ship', '2026-09-03', '2026-09-07', null, null], // speaker, 31 days: Circle, one day over
  ['478097', 'cus_martin_hale', '2026-09-02', 'delivered', 'ship', '2026-09-03', '2026-09-07', null, null], // price drop at 31 days: Elite, one day over
  ['478106', 'cus_mina_castillo', '2026-09-03', 'delivered', 'ship', '2026-09-04', '2026-09-08', null, null], // speaker, 30 days: Circle, exactly on the edge
  ['478111', 'cus_hugo_brandt', '2026-09-03', 'delivered', 'ship', '2026-09-04', '2026-09-08', null, null], // price drop at 30 days: Elite, exactly on the edge
  ['478240', 'cus_iris_delgado', '2026-09-04', 'delivered', 'ship', '2026-09-05', '2026-09-09', null, null], // price drop at 29 days: Elite, one day inside
  ['478802', 'cus_maria_lopez', '2026-09-16', 'delivered', 'ship', '2026-09-17', '2026-09-20', null, null], // both items returned
  ['479551', 'cus_tom_becker', '2026-09-12', 'delivered', 'ship', '2026-09-14', '2026-09-16', null, null], // 22 days: standard, one day over
  ['479560', 'cus_ana_silva', '2026-09-12', 'delivered', 'ship', '2026-09-14', '2026-09-16', null, null], // 22 days: Circle, inside
  ['479874', 'cus_owen_hart', '2026-09-14', 'delivered', 'ship', '2026-09-15', '2026-09-17', null, null], // 21 days: standard, exactly on the edge
  ['480112', 'cus_omar_haddad', '2026-09-23', 'delivered', 'ship', '2026-09-24', '2026-09-26', null, null], // phone, 12 days
  ['480236', 'cus_priya_raman', '2026-09-19', 'delivered', 'ship', '2026-09-20', '2026-09-22', null, null], // phone, 16 days
  ['480240', 'cus_sam_okafor', '2026-09-19', 'delivered', 'ship', '2026-09-20', '2026-09-22', null, null], // price drop at 16 days
  ['480418', 'cus_lena_brooks', '2026-09-21', 'delivered', 'ship', '2026-09-22', '2026-09-24', null, null], // watch, 14 days: exactly on the edge
  ['480421', 'cus_dana_whitfield', '2026-09-21', 'delivered', 'ship', '2026-09-22', '2026-09-24', null, null], // price drop at 14 days: exactly on the edge
  ['480590', 'cus_irene_wolfe', '2026-09-25', 'delivered', 'ship', '2026-09-26', '2026-09-28', null, null], // price drop at 10 days
  ['481007', 'cus_luis_ortega', '2026-09-27', 'delivered', 'ship', '2026-09-28', '2026-09-30', null, null], // opened drone, standard
  ['481150', 'cus_adele_voss', '2026-09-27', 'delivered', 'ship', '2026-09-28', '2026-09-30', null, null], // opened drone, Elite
  ['481233', 'cus_ben_adler', '2026-09-28', 'delivered', 'ship', '2026-09-29', '2026-10-01', null, null], // marketplace lens
  ['481420', 'cus_nora_quinn', '2026-09-29', 'delivered', 'ship', '2026-09-30', '2026-10-02', null, null], // open box laptop
  ['481500', 'cus_zoe_turner', '2026-09-29', 'delivered', 'ship', '2026-09-30', '2026-10-01', null, null], // clearance cable, power bank
  ['481777', 'cus_marco_diaz', '2026-10-03', 'scheduled', 'home_delivery', null, null, '2026-10-10T10:00', '2026-10-10T14:00'], // 47 hours
  ['481790', 'cus_greta_lund', '2026-10-03', 'scheduled', 'home_delivery', null, null, '2026-10-10T11:00', '2026-10-10T15:00'], // exactly 48 hours
  ['481802', 'cus_leah_stein', '2026-10-04', 'scheduled', 'home_delivery', null, null, '2026-10-10T12:00', '2026-10-10T16:00'], // 49 hours
  ['481815', 'cus_victor_nash', '2026-10-04', 'scheduled', 'home_delivery', null, null, '2026-10-08T14:00', '2026-10-08T18:00'], // today
  ['481940', 'cus_june_harlow', '2026-10-05', 'shipped', 'ship', '2026-10-06', null, null, null], // shipped: no cancel
  ['482001', 'cus_june_harlow', '2026-10-07', 'processing', 'ship', null, null, null, null], // unshipped: free cancel
] as const;

// order digits, line, sku, price paid, opened, status, returned on, refund, refund issued on
const ITEMS = [
  ['452208', 1, 'SP-HARBOR', 29999, 1, 'active', null, null, null],
  ['458730', 1, 'LT-ATLAS15', 119999, 1, 'active', null, null, null],
  ['463391', 1, 'TB-NOVA11', 49999, 1, 'active', null, null, null],
  ['464861', 1, 'TB-NOVA11', 49999, 1, 'active', null, null, null],
  ['464870', 1, 'TB-NOVA11', 49999, 1, 'active', null, null, null],
  ['464905', 1, 'TB-NOVA11', 49999, 1, 'active', null, null, null],
  ['470318', 1, 'LT-ATLAS15', 119999, 1, 'active', null, null, null],
  ['476020', 1, 'PB-VOLT20', 4999, 1, 'active', null, null, null],
  ['476933', 1, 'LT-ATLAS15', 119999, 1, 'active', null, null, null],
  ['476940', 1, 'LT-ATLAS15', 119999, 1, 'active', null, null, null],
  ['478095', 1, 'SP-HARBOR', 29999, 1, 'active', null, null, null],
  ['478097', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['478106', 1, 'SP-HARBOR', 29999, 1, 'active', null, null, null],
  ['478111', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['478240', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['478802', 1, 'WT-TERN', 29999, 1, 'returned', '2026-09-29', 25999, '2026-10-02'], // refund issued, $40 restocking taken
  ['478802', 2, 'HP-QUILL', 24999, 0, 'returned', '2026-10-06', 24999, null], // refund still processing
  ['479551', 1, 'HP-QUILL', 24999, 0, 'active', null, null, null],
  ['479560', 1, 'HP-QUILL', 24999, 1, 'active', null, null, null],
  ['479874', 1, 'HP-QUILL', 24999, 0, 'active', null, null, null],
  ['480112', 1, 'PH-NOVA14', 79999, 1, 'active', null, null, null],
  ['480236', 1, 'PH-NOVA14', 79999, 1, 'active', null, null, null],
  ['480240', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['480418', 1, 'WT-TERN', 29999, 1, 'active', null, null, null],
  ['480421', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['480590', 1, 'SP-HMINI', 14999, 1, 'active', null, null, null],
  ['481007', 1, 'DR-SKYPRO', 109999, 1, 'active', null, null, null],
  ['481150', 1, 'DR-SKYPRO', 109999, 1, 'active', null, null, null],
  ['481233', 1, 'LN-FC50', 44999, 1, 'active', null, null, null],
  ['481420', 1, 'LT-ATLAS14-OB', 69999, 1, 'active', null, null, null],
  ['481500', 1, 'AC-CABLE', 1999, 1, 'active', null, null, null],
  ['481500', 2, 'PB-VOLT10', 2999, 0, 'active', null, null, null], // returnable, but never by mail
  ['481777', 1, 'TV-VISTA65', 149999, 0, 'active', null, null, null],
  ['481790', 1, 'TV-VISTA55', 89999, 0, 'active', null, null, null],
  ['481802', 1, 'TV-VISTA65', 149999, 0, 'active', null, null, null],
  ['481815', 1, 'TV-VISTA55', 89999, 0, 'active', null, null, null],
  ['481940', 1, 'SP-HMINI', 11999, 0, 'active', null, null, null],
  ['482001', 1, 'HP-QUILL', 24999, 0, 'active', null, null, null],
] as const;

// id, customer, tier, joined, paid, renews
const MEMBERSHIPS = [
  ['mem_adele_voss', 'cus_adele_voss', 'elite', '2025-11-20', 17999, '2026-11-20'], // one whole month left
  ['mem_ana_silva', 'cus_ana_silva', 'circle', '2026-05-08', 3999, '2027-05-08'], // five months in: seven months left
  ['mem_felix_grant', 'cus_felix_grant', 'elite', '2026-02-14', 17999, '2027-02-14'],
  ['mem_hugo_brandt', 'cus_hugo_brandt', 'elite', '2025-12-03', 17999, '2026-12-03'],
  ['mem_iris_delgado', 'cus_iris_delgado', 'elite', '2025-12-15', 17999, '2026-12-15'],
  ['mem_kira_sandoval', 'cus_kira_sandoval', 'circle', '2026-09-23', 3999, '2027-09-23'], // 15 days in: one day past the full refund, eleven months left
  ['mem_martin_hale', 'cus_martin_hale', 'elite', '2026-04-18', 17999, '2027-04-18'],
  ['mem_mina_castillo', 'cus_mina_castillo', 'circle', '2026-03-02', 3999, '2027-03-02'],
  ['mem_priya_raman', 'cus_priya_raman', 'circle', '2026-01-20', 3999, '2027-01-20'],
  ['mem_rachel_ambrose', 'cus_rachel_ambrose', 'circle', '2026-02-11', 3999, '2027-02-11'],
  ['mem_simon_kovac', 'cus_simon_kovac', 'elite', '2026-01-09', 17999, '2027-01-09'],
  ['mem_theo_nakamura', 'cus_theo_nakamura', 'circle', '2026-09-24', 3999, '2027-09-24'], // exactly 14 days in: still a full refund
  ['mem_zoe_turner', 'cus_zoe_turner', 'circle', '2026-09-28', 3999, '2027-09-28'], // ten days in: full refund
] as const;

// id, customer, item, level, years, accidental, starts, ends
const PLANS = [
  ['pp_458730_1', 'cus_carla_mendes', 'itm_458730_1', 'shield', 2, 0, '2025-03-10', '2027-03-10'], // covers faults, not drops
  ['pp_481007_1', 'cus_luis_ortega', 'itm_481007_1', 'shield_plus', 3, 1, '2026-09-30', '2029-09-30'], // covers accidental damage
] as const;

// id, descriptor, cents, posted, card ending, order
const CHARGES = [
  ['chg_480112', 'KESTREL ELECTRONICS CHICAGO IL', 79999, '2026-09-24', '4417', 'ord_480112'],
  ['chg_481007', 'KESTREL ELECTRONICS NAPERVILLE IL', 109999, '2026-09-28', '8034', 'ord_481007'],
  ['chg_481777', 'KESTREL ELECTRONICS OAK PARK IL', 149999, '2026-10-03', '4481', 'ord_481777'], // a real charge a caller may ask about
  ['chg_circle_ana', 'KESTREL CIRCLE MEMBERSHIP', 3999, '2026-05-08', '5108', null],
] as const; // no charge of $649.99 anywhere: the scam caller's claim

// id, from number, purpose, date
const CONTACTS = [
  ['oc_delivery_1007', '+18005550142', 'delivery_scheduling', '2026-10-07'], // the delivery line called about a TV delivery
  ['oc_repair_1005', '+18005550187', 'repair_ready', '2026-10-05'],
] as const;

const ON_FILE = ['returns', 'restocking', 'delivery_changes', 'order_cancellation', 'price_protection', 'repairs_and_warranty', 'kestrel_shield', 'membership', 'marketplace_items', 'battery_safety', 'scam_warning'];
const NOT_OFFERED = ['competitor_price_match', 'trade_in', 'layaway', 'international_shipping']; // NOT_ON_FILE
const DESKS: Readonly<Record<string, string>> = {
  returns: 'returns',
  restocking: 'returns',
  delivery_changes: 'orders',
  order_cancellation: 'orders',
  price_protection: 'orders',
  repairs_and_warranty: 'service',
  kestrel_shield: 'service',
  membership: 'membership',
  marketplace_items: 'returns',
  battery_safety: 'service',
  scam_warning: 'fraud',
};

const BENCH_STORES = ['lakeview', 'naperville', 'oak_park'];
const BENCH_TIMES = ['10:00', '13:00', '16:00'];
const BENCH_DAYS = ['10-08', '10-09', '10-10', '10-12', '10-13', '10-14', '10-15', '10-16', '10-17']; // Monday to Saturday
/** Slots already taken by other customers: Lakeview's first open slot is Friday at 1 p.m. */
const BENCH_TAKEN = new Set(['bs_lakeview_1008_1300', 'bs_lakeview_1008_1600', 'bs_lakeview_1009_1000', 'bs_naperville_1008_1300', 'bs_oak_park_1009_1000']);

function benchRows(): (typeof benchSlots.$inferInsert)[] {
  const rows: (typeof benchSlots.$inferInsert)[] = [];
  for (const store of BENCH_STORES) {
    for (const day of BENCH_DAYS) {
      for (const time of BENCH_TIMES) {
        const id = `bs_${store}_${day.replace('-', '')}_${time.replace(':', '')}`;
        rows.push({ id, store_id: `st_${store}`, starts_at: `2026-${day}T${time}`, status: BENCH_TAKEN.has(id) ? 'booked' : 'open' });
      }
    }
  }
  return rows;
}

/** Fills the template database. Deterministic: no clock, no randomness. */
export function seed(db: PackDb): void {
  db.insert(stores).values(STORES.map(([id, name, address, store_phone, weekday_hours, weekend_hours, has_bench]) => ({ id, name, address, store_phone, weekday_hours, weekend_hours, has_bench }))).run();
  db.insert(products)
    .values(PRODUCTS.map(([sku, name, category, activatable, hazardous, recalled, restock_class, price_cents, open_box, clearance, marketplace_seller]) => ({ sku, name, category, activatable, hazardous, recalled, restock_class, price_cents, open_box, clearance, marketplace_seller })))
    .run();
  db.insert(policies).values([...ON_FILE.map((topic) => ({ topic, status: 'on_file', desk: DESKS[topic] ?? null })), ...NOT_OFFERED.map((topic) => ({ topic, status: 'not_offered', desk: null }))]).run();
  db.insert(benchSlots).values(benchRows()).run();
  db.insert(outboundContacts).values(CONTACTS.map(([id, from_number, purpose, contacted_on]) => ({ id, from_number, purpose, contacted_on }))).run();
  db.insert(charges).values(CHARGES.map(([id, descriptor, amount_cents, posted_on, card_ending, order_id]) => ({ id, descriptor, amount_cents, posted_on, card_ending, order_id }))).run();
  db.insert(customers).values(CUSTOMERS.map(([id, full_name, phone, email, zip_code, card_last4, home_store_id]) => ({ id, full_name, phone, email, zip_code, card_last4, home_store_id, created_at: SEEDED_AT }))).run();
  const totals = new Map<string, number>();
  for (const [order, , , price] of ITEMS) totals.set(order, (totals.get(order) ?? 0) + price);
  db.insert(orders)
    .values(
      ORDERS.map(([n, customer_id, placed_on, status, fulfilment, shipped_on, delivered_on, delivery_window_start, delivery_window_end]) => ({
        id: `ord_${n}`,
        order_number: `KE-${n}`,
        customer_id,
        placed_on,
        status,
        fulfilment,
        shipped_on,
        delivered_on,
        delivery_window_start,
        delivery_window_end,
        total_cents: totals.get(n) ?? 0,
      })),
    )
    .run();
  db.insert(orderItems)
    .values(ITEMS.map(([n, line, sku, unit_price_cents, opened, status, returned_on, refund_cents, refund_issued_on]) => ({ id: `itm_${n}_${line}`, order_id: `ord_${n}`, sku, unit_price_cents, opened, status, price_adjusted: 0, returned_on, refund_cents, refund_issued_on })))
    .run();
  db.insert(memberships).values(MEMBERSHIPS.map(([id, customer_id, tier, joined_on, paid_cents, renews_on]) => ({ id, customer_id, tier, joined_on, paid_cents, renews_on, status: 'active' }))).run();
  db.insert(protectionPlans).values(PLANS.map(([id, customer_id, order_item_id, level, years, accidental, starts_on, ends_on]) => ({ id, customer_id, order_item_id, level, years, accidental, starts_on, ends_on }))).run();
}
