-- wrk driver for the tools section (bench/tools-bench.ts): POSTs one tool call per request,
-- rotating X-Mivas-Call-Id over the ids given after `--`, counts answers that are not
-- {"ok":true...}, and prints one JSON line of figures when the run ends.
-- Usage: wrk -t1 -cN -dS --latency -s bench/wrk-tools.lua URL -- AUTHORIZATION BODY ID [ID...]

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  authorization = args[1]
  body = args[2]
  ids = {}
  for i = 3, #args do ids[#ids + 1] = args[i] end
  counter = 0
  wrong = 0
  bad_status = 0
end

function request()
  counter = counter + 1
  local id = ids[(counter - 1) % #ids + 1]
  return wrk.format("POST", nil, { ["content-type"] = "application/json", ["authorization"] = authorization, ["x-mivas-call-id"] = id }, body)
end

function response(status, headers, answer)
  if status ~= 200 then
    bad_status = bad_status + 1
  elseif string.sub(answer, 1, 10) ~= '{"ok":true' then
    wrong = wrong + 1
  end
end

function done(summary, latency, requests)
  local wrong_total, status_total = 0, 0
  for _, thread in ipairs(threads) do
    wrong_total = wrong_total + thread:get("wrong")
    status_total = status_total + thread:get("bad_status")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"meanUs":%.1f,"errors":%d,"wrong":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max, latency.mean,
    e.connect + e.read + e.write + e.timeout + status_total, wrong_total))
end
