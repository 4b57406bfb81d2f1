-- Deterministic Lua benchmark: recursion, sorting, string ops, table ops.
-- No math.random (seeded from time in 5.4), no reliance on pairs() order.
local FIB, SORT_ROUNDS, SORT_N, STR_N, MAP_N, OBJ_N = 24, 2, 20000, 6000, 12000, 22000

local M = 0x7fffffff
local seed = 12345
local function rnd()                -- Park-Miller style LCG, integer only
  seed = (seed * 48271) % M
  return seed
end

local checksum = 0
local function mix(v)
  checksum = (checksum * 31 + v) & 0xffffffff
end

-- 1. recursion
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local f = fib(FIB)
print("fib", FIB, f)
mix(f)

-- 2. sorting
for round = 1, SORT_ROUNDS do
  local t = {}
  local n = SORT_N
  for i = 1, n do t[i] = rnd() % 1000000 end
  table.sort(t)
  local ok = true
  for i = 2, n do if t[i - 1] > t[i] then ok = false end end
  -- sort strings with a comparator
  local s = {}
  for i = 1, 3000 do s[i] = string.format("k%07d", rnd() % 10000000) end
  table.sort(s, function(a, b) return a > b end)
  print("sort", round, ok, t[1], t[n // 2], t[n], s[1], s[#s])
  mix(t[n // 2]); mix(#s[1])
end

-- 3. strings: building, format, gsub, find
do
  local parts = {}
  for i = 1, STR_N do
    parts[#parts + 1] = string.format("%d:%x:%s;", i, i * 7, tostring(i % 97))
  end
  local big = table.concat(parts)
  local replaced, cnt = big:gsub("(%d+):(%x+)", "%2-%1")
  local upper = replaced:upper()
  local vowels = select(2, upper:gsub("[AEIOU]", ""))
  local nsemi = select(2, big:gsub(";", ";"))
  local words = 0
  for w in big:gmatch("%d+") do words = words + #w end
  local h = 0
  for i = 1, #replaced, 7 do h = (h * 33 + replaced:byte(i)) & 0xffffff end
  print("strings", #big, #replaced, cnt, vowels, nsemi, words, h)
  mix(#big); mix(cnt); mix(words); mix(h)
  local rep = string.rep("abc", 1000)
  local found = 0
  for i = 1, 2000 do
    local p = rep:find("cab", (i * 13) % 2900 + 1, true)
    if p then found = found + p end
  end
  print("find", found); mix(found)
end

-- 4. tables: insert/lookup/remove with string and integer keys
do
  local map = {}
  local n = MAP_N
  for i = 1, n do map["key" .. (rnd() % 50000)] = i end
  local hits, sum = 0, 0
  for i = 1, n do
    local v = map["key" .. i]
    if v then hits = hits + 1; sum = (sum + v) % 1000000007 end
  end
  local count, ksum = 0, 0
  for k, v in pairs(map) do count = count + 1; ksum = (ksum + v) % 1000000007 end -- order independent
  print("map", hits, sum, count, ksum)
  mix(hits); mix(sum); mix(count); mix(ksum)

  local arr = {}
  for i = 1, n do table.insert(arr, i * 3) end
  for i = 1, 200 do table.insert(arr, #arr - (i % 100), -i) end
  local removed = 0
  for i = 1, 200 do removed = removed + table.remove(arr, #arr - (i % 50)) end
  local s = 0
  for i = 1, #arr, 3 do s = s + arr[i] end
  print("array", #arr, removed, s)
  mix(#arr); mix(removed & 0xffffffff); mix(s & 0xffffffff)
end

-- 5. objects / closures / floats
do
  local Point = {}
  Point.__index = Point
  function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
  function Point.__add(a, b) return Point.new(a.x + b.x, a.y + b.y) end
  function Point:len2() return self.x * self.x + self.y * self.y end
  local acc = Point.new(0, 0)
  for i = 1, OBJ_N do acc = acc + Point.new(i % 7 - 2, i % 5 - 1) end
  local fsum = 0.0
  for i = 1, OBJ_N do fsum = fsum + math.sqrt(i) * 0.5 + math.sin(i * 0.001) end
  print("objects", acc.x, acc.y, acc:len2(), string.format("%.6f", fsum))
  mix(acc:len2() & 0xffffffff); mix(math.floor(fsum) & 0xffffffff)
end

print(string.format("checksum %08x", checksum))
