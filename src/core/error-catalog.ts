import { EXIT } from './exit-codes.ts';
import { ID_CHARS } from './ids.ts';

/** An exit status of the scheme every command shares (architecture.md §14). */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** One declared error code: what it means and how it reaches whoever sees it. */
export interface ErrorSpec {
  /** When the code is produced and what it tells the client; docs/errors.md prints it. */
  readonly meaning: string;
  /** The HTTP status it is answered with, on a route or at the CHIRP upgrade. */
  readonly status?: number;
  /** The process exit status when a command fails with it. */
  readonly exit?: ExitCode;
  /** The fixed sentence a model or caller may hear: tool-envelope codes only (architecture.md convention 8). */
  readonly safe_message?: string;
  /** Tool-envelope codes: whether the model can put it right later in the same call. */
  readonly recoverable?: boolean;
  /** Declared before anything produces it; says who adds the producer. The catalog test fails once one does. */
  readonly reserved?: string;
}

// Pack refusals (NO_MATCH, TOKEN_USED, ...) are pack data: each pack's `errorCodes` declares them
// and its README lists them. This catalog holds the codes of the runtime, the server and the CLI.
const CATALOG = {
  // Tool envelope: {ok: false, error_code, safe_message}, returned to the model and over HTTP with 200.
  UNKNOWN_TOOL: {
    meaning: 'The tool name is not one the pack defines. On a call the model gets the envelope; `POST /tools/:name` answers 404.',
    status: 404,
    safe_message: 'That is not something I can do on this call.',
    recoverable: false,
  },
  TOOL_NOT_AVAILABLE: {
    meaning: 'The tool exists, but the active agent does not own it: another desk handles it.',
    safe_message: 'That is handled by another desk, so I cannot do it from here.',
    recoverable: true,
  },
  HANDOFF_NOT_ALLOWED: {
    meaning: 'A `transfer_to_<agent>` along an edge the blueprint does not declare; the active agent stays.',
    safe_message: 'I cannot transfer the call to that desk from here.',
    recoverable: true,
  },
  INVALID_ARGUMENTS: {
    meaning: "The arguments failed the tool's schema or carried a field it does not declare; `data.invalid_fields` names the fields. Nothing ran.",
    safe_message: 'Some of the details were not in a form I can use. Let me check them again.',
    recoverable: true,
  },
  NOT_VERIFIED: {
    meaning: "The tool is gated on the caller's verification, which has not happened on this call; nothing was written.",
    safe_message: 'I need to verify who I am speaking with before I can help with that.',
    recoverable: true,
  },
  INTERNAL_ERROR: {
    meaning:
      'Something unexpected failed: a tool threw, returned an uncatalogued code or broke its output schema (envelope), a request handler failed (HTTP 500), or a call ends with close 1011 (the `session.error` frame). The exception goes to the log and the timeline, never to the caller.',
    status: 500,
    safe_message: 'Something went wrong on our side while doing that.',
    recoverable: false,
  },

  // HTTP problems: {error: {code, message}} with the status below.
  UNAUTHORIZED: {
    meaning: 'Missing or wrong HTTP Basic credentials (`CHIRP_USER`/`CHIRP_PASS`) on a credentialed route or the CHIRP upgrade; answered with `WWW-Authenticate`, never a 101.',
    status: 401,
  },
  CALL_ID_MISSING: { meaning: '`POST /tools/:name` without an `X-Mivas-Call-Id` header.', status: 400 },
  CALL_ID_INVALID: {
    meaning: `A call id (\`X-Simulation-Result-Id\` at the upgrade, \`X-Mivas-Call-Id\`, or \`:callId\` in a path) does not match \`^${ID_CHARS}$\`, so it could not name a file.`,
    status: 400,
  },
  CALL_NOT_FOUND: { meaning: '`GET /calls/:callId/state` for an id that is neither a live call nor a scratch conversation of the tool routes.', status: 404 },
  CALL_ENDED: {
    meaning: 'An HTTP tool call names a call that has ended; its database is evidence now and takes no more tools. In a text episode, any action after a human transfer other than the handover words (the call ends as it stood).',
    status: 409,
    safe_message: 'The call has already been handed over, so nothing more can be done on it.',
    recoverable: false,
  },
  HTTP_TOOLS_OFF: { meaning: 'The HTTP tool routes are off because `MIVAS_TOOLS_TOKEN` is unset.', status: 404 },
  TOOLS_UNAUTHORIZED: { meaning: 'Wrong or missing bearer token (`MIVAS_TOOLS_TOKEN`) on a tool route.', status: 401 },
  PLATFORM_ROUTES_OFF: { meaning: 'The platform routes (`/platform/...`: relay bots\' tools, the Vapi webhook, the per-call MCP endpoint) are off because `MIVAS_PLATFORM_TOKEN` is unset.', status: 404 },
  PLATFORM_UNAUTHORIZED: { meaning: 'Wrong or missing bearer token (`MIVAS_PLATFORM_TOKEN`) on a platform route.', status: 401 },
  CALL_NOT_BOUND: {
    meaning: 'A platform route names a call no one dialed: no live call has that id (or, for a webhook, no relay bound that platform call id before its audio started). Nothing is opened and no database is created (docs/platforms.md).',
    status: 404,
  },
  PLATFORM_BODY_INVALID: { meaning: 'A platform webhook body that is not the platform\'s message shape (for Vapi: `message.type` `tool-calls` with `call.id` and `toolCallList`).', status: 400 },
  HARNESS_SESSIONS_FULL: { meaning: 'The HTTP tool routes hold their most scratch conversations (1024); idle ones are reaped after `MIVAS_TOOLS_IDLE_S`. `Retry-After` says when to try again.', status: 503 },
  BODY_NOT_OBJECT: { meaning: 'A request body that is not a JSON object: not JSON, empty, an array or a scalar.', status: 422 },
  BODY_TOO_LARGE: { meaning: 'A request body over 1 MiB, the limit of HTTP bodies and CHIRP messages alike.', status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { meaning: 'A request body whose content type is not `application/json`.', status: 415 },
  ROUTE_NOT_FOUND: { meaning: 'No HTTP route takes that method and path (a GET on any path is a CHIRP upgrade instead).', status: 404 },
  BAD_REQUEST: { meaning: 'Any other request Fastify refuses before a route runs (a malformed URL, a body that does not match its Content-Length); the status is the 4xx Fastify gives (usually 400) and the message says why.', status: 400 },
  AUDIO_NOT_FOUND: { meaning: '`/ui/audio/:file` names no scored conversation with a recording in the snapshot store.', status: 404 },
  UI_BUSY: { meaning: 'The results UI already has its most page and scoring requests waiting for its worker thread (32); `Retry-After` says when to try again.', status: 503 },
  SCORES_NOT_FOUND: {
    meaning: 'No `scores.json` where one was expected: `/ui/audio/...` answers 404 (`MIVAS_SCORES_DIR`, else the newest under `<data>/scores`) and `mivas report --scores DIR` exits 3.',
    status: 404,
    exit: EXIT.usage,
  },

  // RL environment routes (docs/rl.md): NeMo Gym, OpenEnv and speech rollouts over episodes.
  RL_UNAUTHORIZED: { meaning: 'Wrong or missing `MIVAS_RL_TOKEN` on an RL route (`/rl/...`, the root NeMo Gym routes, the OpenEnv WebSocket upgrade): send it as `Authorization: Bearer`, or under `/rl` in the URL (`/rl/~<token>/...` or `?token=`).', status: 401 },
  EPISODE_NOT_FOUND: {
    meaning: 'No episode for the session: the request carries no `mivas_episode` cookie (or path id), the id names no episode this process holds, an OpenEnv step came before reset, or an MCP request names an `Mcp-Session-Id` this process does not hold (closed, reaped or never opened; on the platform MCP endpoint of a call, a session of another call or of a call that ended). Episodes live in one process: route a session to the replica that seeded it.',
    status: 404,
  },
  EPISODE_ENDED: { meaning: 'The episode has ended (end_call, a human transfer, the caller hung up, the turn cap, or verify): it takes no more actions; verify still answers with its reward.', status: 409 },
  EPISODES_FULL: { meaning: '`MIVAS_RL_MAX_EPISODES` episodes are live in this process and every one has been acted on (an episode untouched since its seed is ended to make room); `Retry-After` says when to try again. OpenEnv WebSocket clients get `CAPACITY_REACHED` instead. The per-call platform MCP endpoint answers it past 256 open sessions.', status: 503 },
  OPENENV_SOCKETS_FULL: {
    meaning: 'An upgrade to `/rl/<pack>/openenv/ws` while `MIVAS_RL_MAX_SOCKETS` OpenEnv sockets (lowered to fit the open-file limit) are open; answered with `Retry-After` before any 101, and the connection is closed.',
    status: 503,
  },
  EPISODE_INVALID: {
    meaning: 'An episode or rollout cannot start as asked: an unknown task id, a handoff mode other than native or soft, a caller kind this build has not got (or `llm` with no caller endpoint configured: the message names the tasks the opening line can pass), a bad turn cap, or a policy URL that is not ws:// or wss://.',
    status: 422,
  },
  MCP_SESSION_REQUIRED: { meaning: 'MCP (`/rl/<pack>/mcp`): a request without an `Mcp-Session-Id` that is not an `initialize` POST. Initialize first; the session it returns is the episode.', status: 400 },
  ROLLOUT_NOT_FOUND: { meaning: '`GET /rl/rollouts/:id` names no speech rollout this process ran or runs.', status: 404 },
  INVALID_JSON: { meaning: 'OpenEnv WebSocket: a message that is not JSON (OpenEnv `WSErrorCode.INVALID_JSON`, sent as `{type: "error"}`; the socket stays open). Over HTTP the same body gets `BODY_NOT_OBJECT`.', status: 422 },
  UNKNOWN_TYPE: { meaning: 'OpenEnv WebSocket: a message whose `type` is none of reset, step, state, close, mcp (OpenEnv `WSErrorCode.UNKNOWN_TYPE`).', status: 422 },
  VALIDATION_ERROR: { meaning: 'OpenEnv: a message or action that does not match its schema (OpenEnv `WSErrorCode.VALIDATION_ERROR`); `errors` lists the issues. `/schema` gives the action schema.', status: 422 },
  CAPACITY_REACHED: { meaning: 'OpenEnv WebSocket: `MIVAS_RL_MAX_EPISODES` episodes are live, so the connection gets this error and a close (OpenEnv `WSErrorCode.CAPACITY_REACHED`).', status: 503 },
  EXECUTION_ERROR: { meaning: 'OpenEnv WebSocket: a message failed inside mivas for an unexpected reason (OpenEnv `WSErrorCode.EXECUTION_ERROR`); the error is logged, the socket stays open.', status: 500 },

  // CHIRP upgrade refusals: answered before any 101 (wire.md §1.2).
  TASK_ID_INVALID: { meaning: '`X-Mivas-Task-Id` is not a task id (`^[A-Za-z0-9-]{1,32}$`).', status: 400 },
  RUN_ID_INVALID: { meaning: `\`X-Mivas-Run-Id\` does not match \`^${ID_CHARS}$\`.`, status: 400 },
  CALL_REFUSED: { meaning: "The harness refuses the call before it starts (for example `scripted` without a task it knows); the message is the harness's reason.", status: 400 },
  CALL_ID_LIVE: { meaning: 'The call id is already live, or held by an upgrade still in its handshake.', status: 409 },
  CALL_ID_USED: { meaning: 'The call id was already used: its database, spool set or snapshot exists. A call id names one conversation, once.', status: 409 },
  AT_CAPACITY: { meaning: '`MIVAS_MAX_CALLS` calls are live; `Retry-After` says when to dial again. Probes are still answered.', status: 503 },
  DRAINING: { meaning: 'The server is draining after SIGTERM and takes no new calls; `Retry-After` says when to dial again.', status: 503 },
  NOT_A_CHIRP_PATH: {
    meaning: 'A WebSocket upgrade on an HTTP route (`/health`, `/metrics`, `/ui/...`, the tool routes): only CHIRP paths (`/`, `/probe`, any path no HTTP route takes) upgrade. Answered before any credential check, never with a 101.',
    status: 400,
  },
  UPGRADE_REQUIRED: { meaning: 'A plain GET on a CHIRP path (`/` or any path no HTTP route takes): that path speaks CHIRP over WebSocket.', status: 426 },

  // Inside the server: logged and recorded, never sent as they are.
  OUTBOUND_TIMEOUT: {
    meaning:
      'An endpoint mivas calls (the text policy, the `llm` caller\'s chat, transcription and speech, the cascade\'s STT, LLM and TTS, Bluejay) did not finish its answer, body included, within its timeout (`MIVAS_POLICY_TIMEOUT_S`, `MIVAS_CALLER_TIMEOUT_S`, `MIVAS_CASCADE_TIMEOUT_S`, `MIVAS_BLUEJAY_TIMEOUT_S`). The conversation is voided: `provider_error` on the agent\'s side, the caller\'s `mind_error` (`infra_error`) on the caller\'s.',
  },
  OUTBOUND_BODY_TOO_LARGE: {
    meaning:
      'An endpoint mivas calls sent an answer over its body cap (`MIVAS_*_MAX_BODY_MB`, `MIVAS_*_MAX_AUDIO_MB`), or a request to it would have been over the cap; mivas stops reading at the cap and closes the connection. Voided like `OUTBOUND_TIMEOUT`.',
  },

  // Commands: the message goes to stderr and the command exits with the status below.
  USAGE: { meaning: 'The command line is wrong: an unknown command or subcommand, a missing or malformed flag. The usage text follows.', exit: EXIT.usage },
  CONFIG_INVALID: { meaning: 'The environment and flags fail the configuration schema; every problem is printed.', exit: EXIT.usage },
  PACK_NOT_FOUND: { meaning: 'No `blueprint.json` for that pack id under the packs directory.', exit: EXIT.usage },
  PACK_INVALID: { meaning: 'The pack breaks the pack contract; each problem names its file and field.', exit: EXIT.usage },
  TASK_NOT_FOUND: { meaning: '`mivas run --task` names task ids the pack does not have.', exit: EXIT.usage },
  UNKNOWN_HARNESS: { meaning: '`MIVAS_HARNESS` (or `--harness`) names no harness; the message lists the known ones.', exit: EXIT.usage },
  TOOLS_UNVERIFIED: {
    meaning:
      '`mivas run` on a realtime harness whose last `mivas preflight` (for the same model) found no function calling, or could not check it; scored tasks need tool calls. `--allow-no-tools` runs anyway.',
    exit: EXIT.checkFailed,
  },
  PROVIDER_SETTING_MISSING: { meaning: 'The harness needs a setting (an API key or base URL) that is unset; the message names the variable.', exit: EXIT.usage },
  SNAPSHOTS_NOT_FOUND: { meaning: 'The snapshot directory does not exist, or `mivas score` found no snapshots under it (for that pack or run).', exit: EXIT.usage },
  SNAPSHOT_STORE_UNREADABLE: {
    meaning: 'The snapshot store cannot be read: `s3://…` without credentials (the AWS SDK chain found none), a bucket that does not exist or refuses access, or no network. The message names the store and the SDK error, never a stack.',
    exit: EXIT.usage,
  },
  RUN_RECORD_INVALID: { meaning: "`mivas run --resume RUN`: the run's record (`MIVAS_DATA_DIR/runs/RUN.json`, written when the run started) is not readable JSON of the record's schema.", exit: EXIT.usage },
  SNAPSHOTS_UNREADABLE: {
    meaning:
      '`mivas score` found files under the snapshot folder but skipped every one (links out of the folder or dangling, FIFOs, devices, files over `--max-json-mb`/`--max-file-mb`, sets whose summary names another call or pack); each was named on stderr with its reason.',
    exit: EXIT.usage,
  },
  MAPPING_UNREADABLE: { meaning: 'The `--mapping` file cannot be read.', exit: EXIT.usage },
  MAPPING_INVALID: { meaning: 'The `--mapping` file is not a mapping: bad JSON or CSV, a bad conversation id, or one conversation mapped to two tasks.', exit: EXIT.usage },
  SCORES_INVALID: { meaning: '`scores.json` does not match the score file schema.', exit: EXIT.usage },
  JUDGE_NOT_CONFIGURED: { meaning: '`mivas score --judge` without a judge: `MIVAS_JUDGE_BASE_URL` or `MIVAS_JUDGE_MODEL` is unset.', exit: EXIT.usage },
  JUDGE_FAILED: {
    meaning:
      'The judge of `mivas score --judge` failed (an HTTP error, a timeout, an answer over its cap or not the rubric\'s JSON): the judge stops asking, the scores are written, and the conversations not judged keep their judge scores absent.',
    exit: EXIT.incomplete,
  },
  BUNDLE_INVALID: { meaning: '`mivas verify` was given no result bundle: `bundle.json` is missing, unreadable or not of the `mivas-bundle/1` format, or the bundle holds no snapshots and no `--snapshots` was given.', exit: EXIT.usage },
  BLUEJAY_KEY_MISSING: { meaning: 'A `mivas bluejay` subcommand that talks to Bluejay runs without `BLUEJAY_API_KEY`.', exit: EXIT.usage },
  BLUEJAY_UNREACHABLE: { meaning: 'The Bluejay API could not be reached (network or timeout).', exit: EXIT.checkFailed },
  BLUEJAY_HTTP_ERROR: { meaning: 'The Bluejay API answered with an HTTP error; the message carries its status and the start of its body.', exit: EXIT.checkFailed },
  BLUEJAY_BAD_RESPONSE: { meaning: 'The Bluejay API answered with a body that does not match its schema.', exit: EXIT.checkFailed },
} as const satisfies Readonly<Record<string, ErrorSpec>>;

/** Every error code mivas itself produces, each declared once (frozen, entries too). */
export const ERROR_CATALOG: typeof CATALOG = Object.freeze(
  Object.fromEntries(Object.entries(CATALOG).map(([code, spec]) => [code, Object.freeze(spec)])) as typeof CATALOG,
);

/** A declared error code. */
export type ErrorCode = keyof typeof CATALOG;

type CodesWith<F extends keyof ErrorSpec> = { [C in ErrorCode]: (typeof CATALOG)[C] extends Readonly<Record<F, unknown>> ? C : never }[ErrorCode];

/** Codes a tool envelope may carry: each has a safe message. */
export type EnvelopeErrorCode = CodesWith<'safe_message'>;
/** Codes answered over HTTP (routes and the CHIRP upgrade): each has a status. */
export type HttpErrorCode = CodesWith<'status'>;
/** Codes a command can fail with: each has an exit status. */
export type CliErrorCode = CodesWith<'exit'>;

/** True when the string is a declared code. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, value);
}

/** An HTTP refusal: the catalog's status for the code, and a message for this occurrence. */
export interface HttpProblem<C extends HttpErrorCode = HttpErrorCode> {
  readonly status: number;
  readonly code: C;
  readonly message: string;
}

/** Builds the problem of a code; the message defaults to the code's meaning. */
export function httpProblem<C extends HttpErrorCode>(code: C, message?: string): HttpProblem<C> {
  return { status: ERROR_CATALOG[code].status, code, message: message ?? ERROR_CATALOG[code].meaning };
}

/** The JSON body every HTTP refusal is sent with: `{error: {code, message}}`. */
export function problemBody(problem: HttpProblem): { readonly error: { readonly code: HttpErrorCode; readonly message: string } } {
  return { error: { code: problem.code, message: problem.message } };
}

/** The envelope of a runtime refusal, shaped like the tools folder's `Envelope`. */
export interface EnvelopeRefusal {
  readonly ok: false;
  readonly error_code: EnvelopeErrorCode;
  readonly safe_message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Builds a runtime refusal envelope with the code's fixed sentence; `data` carries computed details, never raw input. */
export function envelopeRefusal(code: EnvelopeErrorCode, data?: Readonly<Record<string, unknown>>): EnvelopeRefusal {
  const base = { ok: false, error_code: code, safe_message: ERROR_CATALOG[code].safe_message } as const;
  return data === undefined ? base : { ...base, data };
}

/** The safe message and recoverability of every envelope code, in the shape a pack's `errorCodes` has. */
export const ENVELOPE_ERROR_CODES: Readonly<Record<EnvelopeErrorCode, { readonly safe_message: string; readonly recoverable: boolean }>> = Object.freeze(
  Object.fromEntries(
    Object.entries(ERROR_CATALOG).flatMap(([code, spec]: [string, ErrorSpec]) =>
      spec.safe_message === undefined ? [] : [[code, Object.freeze({ safe_message: spec.safe_message, recoverable: spec.recoverable ?? false })]],
    ),
  ) as Record<EnvelopeErrorCode, { readonly safe_message: string; readonly recoverable: boolean }>,
);

/**
 * The exit status a command returns for a code. A MivasError without a declared exit that reaches
 * the CLI is still a setup problem the user must fix, so it maps to 3 (usage or configuration).
 */
export function exitCodeOf(code: ErrorCode): ExitCode {
  const spec: ErrorSpec = ERROR_CATALOG[code];
  return spec.exit ?? EXIT.usage;
}
