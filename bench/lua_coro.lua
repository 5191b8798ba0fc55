-- Peer of schedlab's BenchmarkGosched (lang/bench_test.go): a round-robin
-- scheduler of Lua 5.4 coroutines.
--
-- G tasks share N switches; each task is `for _ = 1, n do coroutine.yield(true) end`,
-- the scheduler a FIFO run queue (a ring in a table) from which it takes
-- the next task, resumes it until its next yield and puts it back at the
-- tail. One op is one switch (resume and yield). Prints one line per run
-- in Go's benchmark format, so that benchstat reads it. Lua has no wall
-- clock finer than a second, so the only figure is CPU time (os.clock):
--
--     BenchmarkLuaCoroutine/tasks=1000 	2000000	105.3 cpu-ns/op
--
-- Usage: lua5.4 lua_coro.lua [tasks [n [count]]]

local tasks_n = tonumber(arg[1]) or 1000
local n = tonumber(arg[2]) or 2000000
local count = tonumber(arg[3]) or 6

local create, resume, yield = coroutine.create, coroutine.resume, coroutine.yield

local function worker(k)
  for _ = 1, k do
    yield(true)
  end
end

-- run runs g tasks sharing total switches and returns the CPU seconds it
-- took.
local function run(g, total)
  local q = {}
  for i = 1, g do
    q[i] = create(worker)
  end
  -- The first resume passes each task its share and runs it to its first
  -- yield, which counts as its first switch.
  local start = os.clock()
  for i = 1, g do
    local k = total // g + ((i - 1 < total % g) and 1 or 0)
    local _, more = resume(q[i], k)
    if not more then
      q[i] = false
    end
  end
  local ring = {}
  for i = 1, g do
    if q[i] then
      ring[#ring + 1] = q[i]
    end
  end
  local head, tail = 1, #ring
  q = ring
  while head <= tail do
    local co = q[head]
    q[head] = nil
    head = head + 1
    local _, more = resume(co)
    if more then
      tail = tail + 1
      q[tail] = co
    end
  end
  return os.clock() - start
end

run(tasks_n, math.min(n, 100000)) -- warm up
for _ = 1, count do
  local secs = run(tasks_n, n)
  io.write(string.format("BenchmarkLuaCoroutine/tasks=%d \t%d\t%.1f cpu-ns/op\n", tasks_n, n, secs * 1e9 / n))
  io.flush()
end
