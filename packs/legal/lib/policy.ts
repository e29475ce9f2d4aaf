/**
 * Halverson & Reed's fixed clock, policy numbers and closed vocabularies. Every number a tool reads
 * lives here (packs.md §1.4); the README's policy block is generated from `policy`. Which area pays
 * which fee and runs on which window is seed data (practice_rules, filing_rules); the numbers are here.
 */

/** Wednesday 2026-10-07 09:30 in Pittsburgh time; Thanksgiving, the day after and Christmas are closed. */
export const clock = {
  now: '2026-10-07T09:30',
  timezone: 'America/New_York',
  holidays: ['2026-11-26', '2026-11-27', '2026-12-25'],
} as const;

/** Every fee, window and threshold the tools apply. Boundaries are stated beside each. */
export const policy = {
  /** Injury cases (car, truck, premises, product, malpractice): share of the recovery if resolved before a lawsuit is filed. */
  injury_fee_before_suit_percent: 30,
  /** Injury cases: share of the recovery once a lawsuit has been filed. */
  injury_fee_after_suit_percent: 36,
  /** Workplace injury: share of the award. */
  workplace_injury_fee_percent: 20,
  /** Employment discrimination and wage claims: share of the recovery. */
  employment_fee_percent: 35,
  /** Injury and workplace injury consultations are free. */
  injury_consult_fee_cents: 0,
  workplace_injury_consult_fee_cents: 0,
  /** Employment consultations cost this, credited to the case if the firm takes it. */
  employment_consult_fee_cents: 15000,
  /** Screening windows (fictional), calendar arithmetic from the incident date; February 29 becomes February 28. */
  injury_window_years: 2,
  product_window_years: 2,
  workplace_injury_window_years: 1,
  employment_window_days: 240,
  wages_window_years: 3,
  /** A window with this many days left or fewer (inclusive, down to 0 on the deadline itself) is urgent; below 0 it has expired. */
  urgent_within_days: 60,
  /** The third failed client verification locks the call (reaching the value locks). */
  client_verify_lock_after_failures: 3,
  /** Closed files are kept this many years. */
  closed_file_retention_years: 7,
  /** Teams return messages within this many business days. */
  team_reply_business_days: 1,
  /** Consultations are offered up to this many days ahead (inclusive). */
  consult_search_horizon_days: 21,
  openings_per_search: 3,
} as const;

/** Practice areas a caller may name; the first eight are ones the firm handles somewhere. */
export const AREAS = [
  'car_accident',
  'truck_accident',
  'premises_injury',
  'product_injury',
  'medical_malpractice',
  'workplace_injury',
  'employment_discrimination',
  'wage_claim',
  'family',
  'criminal',
  'immigration',
  'bankruptcy',
  'tax',
  'real_estate',
  'other',
] as const;
export type Area = (typeof AREAS)[number];

/** Areas with practice rules (accepted in at least one state or declined per state). */
export const HANDLED_AREAS: readonly Area[] = AREAS.slice(0, 8);

export const AREA_NAMES: Readonly<Record<Area, string>> = {
  car_accident: 'car accident',
  truck_accident: 'truck accident',
  premises_injury: 'premises injury',
  product_injury: 'defective product injury',
  medical_malpractice: 'medical malpractice',
  workplace_injury: 'workplace injury',
  employment_discrimination: 'employment discrimination',
  wage_claim: 'unpaid wage claim',
  family: 'family law',
  criminal: 'criminal defense',
  immigration: 'immigration',
  bankruptcy: 'bankruptcy',
  tax: 'tax',
  real_estate: 'real estate',
  other: 'that kind of matter',
};

/** What callers say for each area, after lower-casing and joining words with underscores. */
export const AREA_ALIASES: Readonly<Record<string, Area>> = {
  car_crash: 'car_accident',
  car_wreck: 'car_accident',
  auto_accident: 'car_accident',
  motor_vehicle_accident: 'car_accident',
  rear_ended: 'car_accident',
  motorcycle_accident: 'car_accident',
  truck_crash: 'truck_accident',
  semi_truck_accident: 'truck_accident',
  tractor_trailer_accident: 'truck_accident',
  slip_and_fall: 'premises_injury',
  trip_and_fall: 'premises_injury',
  premises_liability: 'premises_injury',
  dog_bite: 'premises_injury',
  defective_product: 'product_injury',
  product_liability: 'product_injury',
  malpractice: 'medical_malpractice',
  med_mal: 'medical_malpractice',
  medical_negligence: 'medical_malpractice',
  hurt_at_work: 'workplace_injury',
  work_injury: 'workplace_injury',
  workers_comp: 'workplace_injury',
  workers_compensation: 'workplace_injury',
  "workers'_comp": 'workplace_injury',
  "workers'_compensation": 'workplace_injury',
  discrimination: 'employment_discrimination',
  age_discrimination: 'employment_discrimination',
  race_discrimination: 'employment_discrimination',
  racial_discrimination: 'employment_discrimination',
  sex_discrimination: 'employment_discrimination',
  gender_discrimination: 'employment_discrimination',
  pregnancy_discrimination: 'employment_discrimination',
  disability_discrimination: 'employment_discrimination',
  religious_discrimination: 'employment_discrimination',
  sexual_harassment: 'employment_discrimination',
  workplace_discrimination: 'employment_discrimination',
  wrongful_termination: 'employment_discrimination',
  harassment: 'employment_discrimination',
  retaliation: 'employment_discrimination',
  unpaid_wages: 'wage_claim',
  wages: 'wage_claim',
  unpaid_overtime: 'wage_claim',
  overtime: 'wage_claim',
  divorce: 'family',
  custody: 'family',
  child_support: 'family',
  family_law: 'family',
  dui: 'criminal',
  criminal_defense: 'criminal',
  visa: 'immigration',
  green_card: 'immigration',
  taxes: 'tax',
  irs: 'tax',
  landlord_tenant: 'real_estate',
  eviction: 'real_estate',
  property: 'real_estate',
};

/** Fee plans a practice rule points to; the numbers above belong to them. */
export const FEE_PLANS = ['injury', 'workplace_injury', 'employment'] as const;
export type FeePlan = (typeof FEE_PLANS)[number];

/** Window rules a filing rule points to. */
export const WINDOW_RULES = ['injury', 'product', 'workplace_injury', 'employment', 'wages'] as const;
export type WindowRule = (typeof WINDOW_RULES)[number];

/** The three licensed states. */
export const LICENSED_STATES = ['PA', 'OH', 'WV'] as const;

/** State names (and a few spoken forms) to postal codes. */
export const STATE_CODES: Readonly<Record<string, string>> = {
  alabama: 'AL', alaska: 'AK', arizona: 'AZ', arkansas: 'AR', california: 'CA', colorado: 'CO', connecticut: 'CT', delaware: 'DE',
  district_of_columbia: 'DC', washington_dc: 'DC', florida: 'FL', georgia: 'GA', hawaii: 'HI', idaho: 'ID', illinois: 'IL', indiana: 'IN',
  iowa: 'IA', kansas: 'KS', kentucky: 'KY', louisiana: 'LA', maine: 'ME', maryland: 'MD', massachusetts: 'MA', michigan: 'MI',
  minnesota: 'MN', mississippi: 'MS', missouri: 'MO', montana: 'MT', nebraska: 'NE', nevada: 'NV', new_hampshire: 'NH', new_jersey: 'NJ',
  new_mexico: 'NM', new_york: 'NY', north_carolina: 'NC', north_dakota: 'ND', ohio: 'OH', oklahoma: 'OK', oregon: 'OR', pennsylvania: 'PA',
  penn: 'PA', rhode_island: 'RI', south_carolina: 'SC', south_dakota: 'SD', tennessee: 'TN', texas: 'TX', utah: 'UT', vermont: 'VT',
  virginia: 'VA', washington: 'WA', west_virginia: 'WV', wisconsin: 'WI', wyoming: 'WY',
};

export const STATE_NAMES: Readonly<Record<string, string>> = { PA: 'Pennsylvania', OH: 'Ohio', WV: 'West Virginia' };

/** Offices by id, and where a consultation can happen. */
export const OFFICE_IDS = ['off_pittsburgh', 'off_columbus', 'off_wheeling'] as const;
export type OfficeId = (typeof OFFICE_IDS)[number];
export const CONSULT_LOCATIONS = [...OFFICE_IDS, 'video'] as const;
export type ConsultLocation = (typeof CONSULT_LOCATIONS)[number];

export const LOCATION_ALIASES: Readonly<Record<string, ConsultLocation>> = {
  pittsburgh: 'off_pittsburgh',
  pgh: 'off_pittsburgh',
  downtown_pittsburgh: 'off_pittsburgh',
  columbus: 'off_columbus',
  ohio_office: 'off_columbus',
  wheeling: 'off_wheeling',
  west_virginia_office: 'off_wheeling',
  video_call: 'video',
  zoom: 'video',
  online: 'video',
  virtual: 'video',
};

/** The attorneys a message may be left for by name. */
export const ATTORNEY_IDS = ['atty_margaret_halverson', 'atty_james_reed', 'atty_elena_ruiz', 'atty_daniel_price', 'atty_carla_jennings'] as const;

/** Message recipients: the verified client's own team, the intake team, the front office, or an attorney by name. */
export const RECIPIENTS = ['assigned_team', 'intake_team', 'front_office', ...ATTORNEY_IDS] as const;
export type Recipient = (typeof RECIPIENTS)[number];

export const RECIPIENT_ALIASES: Readonly<Record<string, Recipient>> = {
  my_team: 'assigned_team',
  case_team: 'assigned_team',
  my_attorney: 'assigned_team',
  my_lawyer: 'assigned_team',
  intake: 'intake_team',
  new_cases: 'intake_team',
  reception: 'front_office',
  office_manager: 'front_office',
  front_desk: 'front_office',
  margaret_halverson: 'atty_margaret_halverson',
  halverson: 'atty_margaret_halverson',
  james_reed: 'atty_james_reed',
  reed: 'atty_james_reed',
  elena_ruiz: 'atty_elena_ruiz',
  ruiz: 'atty_elena_ruiz',
  daniel_price: 'atty_daniel_price',
  price: 'atty_daniel_price',
  carla_jennings: 'atty_carla_jennings',
  jennings: 'atty_carla_jennings',
};

export const NOTE_TOPICS = ['injuries', 'medical_treatment', 'witnesses', 'insurance', 'employment', 'documents', 'timeline', 'other'] as const;

export const RECORD_TYPES = ['medical', 'employment', 'police_report'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** Which record releases make sense for which area. */
export const RECORDS_FOR_AREA: Readonly<Record<RecordType, readonly Area[]>> = {
  medical: ['car_accident', 'truck_accident', 'premises_injury', 'product_injury', 'medical_malpractice', 'workplace_injury', 'employment_discrimination'],
  employment: ['workplace_injury', 'employment_discrimination', 'wage_claim'],
  police_report: ['car_accident', 'truck_accident'],
};

export const FORM_CHANNELS = ['email', 'text'] as const;

export const CALLER_ROLES = ['client', 'family_member', 'other'] as const;

/** Case stages as the status tool says them. */
export const STAGE_NAMES: Readonly<Record<string, string>> = {
  investigation: 'investigation: the team is gathering records and evidence',
  demand: 'demand: a settlement demand has gone to the other side',
  negotiation: 'negotiation: the team is negotiating with the other side',
  lawsuit_filed: 'lawsuit filed: the case is in court',
  discovery: 'discovery: both sides are exchanging documents and answers in the lawsuit',
  mediation: 'mediation: a mediator is scheduled to help the sides talk',
  closed: 'closed: the firm has finished its work on this matter',
};
