-- wrk script for the throughput section (bench/throughput.py): every request is a JSON-RPC
-- message/send or message/stream (the first script argument) with a fresh messageId, since a
-- repeated messageId is an idempotent retry and would not run the agent again. The second
-- argument is the A2A version spoken: "0.3" (the default) or "1.0" (SendMessage /
-- SendStreamingMessage, 1.0's message shape, the A2A-Version header). A response whose body
-- does not show the task completed is counted as bad. `done` prints one line, "BENCH {json}",
-- that the bench parses.
--
--   wrk -c32 -d20s -s a2a.lua http://127.0.0.1:8000/ -- message/send 1.0

local threads = {}
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("tid", thread_count)
  table.insert(threads, thread)
end

function init(args)
  method = args[1] or "message/send"
  version = args[2] or "0.3"
  streaming = method == "message/stream"
  accept = streaming and "text/event-stream" or "application/json"
  headers = {["Content-Type"] = "application/json", ["Accept"] = accept}
  if version == "1.0" then
    rpc_method = streaming and "SendStreamingMessage" or "SendMessage"
    template = '{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"message":{' ..
      '"role":"ROLE_USER","messageId":"%s%d","parts":[{"text":"hello, bench"}]}}}'
    -- Only a completed task carries this name; the 1.x SDK's SSE frames put a space after
    -- each colon, so the state's key is left out of the marker.
    done_marker = '"TASK_STATE_COMPLETED"'
    headers["A2A-Version"] = "1.0"
  else
    rpc_method = method
    template = '{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"message":{"kind":"message",' ..
      '"role":"user","messageId":"%s%d","parts":[{"kind":"text","text":"hello, bench"}]}}}'
    done_marker = '"state":"completed"'
  end
  prefix = string.format("bench-%d-%d-", os.time(), tid)
  counter = 0
  bad = 0
end

function request()
  counter = counter + 1
  local body = string.format(template, counter, rpc_method, prefix, counter)
  return wrk.format("POST", "/", headers, body)
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, done_marker, 1, true) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local bad_total = 0
  for _, thread in ipairs(threads) do
    bad_total = bad_total + (thread:get("bad") or 0)
  end
  local errors = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,' ..
    '"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,"bad":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, errors.connect, errors.read,
    errors.write, errors.status, errors.timeout, bad_total,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean,
    latency.max))
end
