-- perflab: wrk done() hook, appended to every script the lab runs.
-- Prints the run's figures as one JSON object between two marker lines, so the lab does not
-- have to parse wrk's human-oriented text (kept as a fallback). Times are in microseconds.
-- errors.status is wrk's count of responses with status > 399 ("Non-2xx or 3xx responses").

-- The percentiles form a grid (every whole percent, then 99.5, 99.9, 99.99) so that short runs
-- can be merged into one distribution (perflab.drivers.merge) to the grid's resolution.

function done(summary, latency, requests)
  local points = {}
  for p = 1, 99 do points[#points + 1] = p end
  points[#points + 1] = 99.5
  points[#points + 1] = 99.9
  points[#points + 1] = 99.99
  local parts = {}
  for _, p in ipairs(points) do
    parts[#parts + 1] = string.format('"%s": %.3f', tostring(p), latency:percentile(p))
  end
  local e = summary.errors
  io.write("PERFLAB-WRK-SUMMARY-BEGIN\n")
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, ' ..
    '"latency_us": {"mean": %.3f, "stdev": %.3f, "min": %d, "max": %d, "percentiles": {%s}}, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\n',
    summary.requests, summary.duration, summary.bytes,
    latency.mean, latency.stdev, latency.min, latency.max, table.concat(parts, ", "),
    e.connect, e.read, e.write, e.status, e.timeout))
  io.write("PERFLAB-WRK-SUMMARY-END\n")
end
