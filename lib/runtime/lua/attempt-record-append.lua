--[[
  Appends one attempt entry to each job's record (lib/runtime/attempt-record.ts), in the
  job's own hash, so the record is deleted with the job.
  KEYS[i]: a job's hash (all of one queue: one hash tag, one cluster slot).
  ARGV[1]: the record's field; ARGV[2]: the field of the dropped count; ARGV[3]: max entries.
  ARGV[2 + 2i]: the job's creation time (its hash's "timestamp"; empty: any job under the
  key), ARGV[3 + 2i]: the entry line.
  A job that is gone (retention, a clean) gets nothing, so no hash is made again for a
  removed job; nor does a new job under the same id (a different creation time).
  A line the record already holds is not added again (a flush sent twice after a lost answer).
  Over the bound, the second line goes: the first attempt and the latest are kept.
  Returns how many entries were written.
]]
local rcall = redis.call
local field, droppedField, max = ARGV[1], ARGV[2], tonumber(ARGV[3])
local written = 0
for i, key in ipairs(KEYS) do
  local created, line = ARGV[2 + 2 * i], ARGV[3 + 2 * i]
  local ours
  if created == "" then
    ours = rcall("EXISTS", key) == 1
  else
    ours = rcall("HGET", key, "timestamp") == created
  end
  local record = ours and rcall("HGET", key, field)
  if ours and record and string.find(record, line, 1, true) then
    ours = false
  end
  if ours then
    if record then
      record = record .. "\n" .. line
      local _, breaks = string.gsub(record, "\n", "")
      if breaks + 1 > max then
        local first = string.find(record, "\n", 1, true)
        local second = string.find(record, "\n", first + 1, true)
        record = string.sub(record, 1, first) .. string.sub(record, second + 1)
        rcall("HINCRBY", key, droppedField, 1)
      end
    else
      record = line
    end
    rcall("HSET", key, field, record)
    written = written + 1
  end
end
return written
