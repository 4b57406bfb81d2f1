// Deterministic Wren benchmark (SCALE is defined before this by
// wren_bench.c): recursion, classes and method calls, closures and
// sequence operations, sorting with a comparator, string building, maps,
// and a small stack-machine interpreter.  A checksum after each section.
var N = Fn.new {|base| (base * SCALE).floor }

var M = 2147483647
var Seed = 12345
var Checksum = 0

class Bench {
  static rnd() {
    Seed = (Seed * 48271) % M
    return Seed
  }
  static mix(v) { Checksum = (Checksum * 31 + v) % M }
  static fib(n) { n < 2 ? n : fib(n - 1) + fib(n - 2) }
}

class Vec {
  construct new(x, y) {
    _x = x
    _y = y
  }
  x { _x }
  y { _y }
  +(o) { Vec.new(_x + o.x, _y + o.y) }
  *(k) { Vec.new(_x * k, _y * k) }
  dot(o) { _x * o.x + _y * o.y }
}

// 1. recursion
var fibs = 0
for (round in 0...N.call(4)) fibs = fibs + Bench.fib(22)
System.print("fib %(fibs)")
Bench.mix(fibs % M)

// 2. objects and method calls
var acc = Vec.new(0, 0)
var dots = 0
for (i in 0...N.call(60000)) {
  var v = Vec.new(i % 97, i % 89)
  acc = acc + v * 2
  dots = (dots + v.dot(acc)) % M
}
System.print("vec %(acc.x) %(acc.y) %(dots)")
Bench.mix(dots)

// 3. closures and sequences
var nums = []
for (i in 0...N.call(30000)) nums.add(Bench.rnd() % 1000)
var offset = 7
var shifted = nums.map {|x| x + offset }.where {|x| x % 3 != 0 }.toList
var total = shifted.reduce(0) {|a, b| a + b }
System.print("seq %(shifted.count) %(total)")
Bench.mix(total % M)

// 4. sorting with a comparator
var keys = []
for (i in 0...N.call(20000)) keys.add(Bench.rnd() % 100000)
keys.sort {|a, b| a > b }
var sorted = true
if (keys.count > 1) {   // a range from 1 down to 0 would count down
  for (i in 1...keys.count) if (keys[i - 1] < keys[i]) sorted = false
}
var head = keys.count > 0 ? keys[0] : 0
System.print("sort %(keys.count) %(sorted) %(head)")
Bench.mix(head)

// 5. string building (joined a hundred at a time: Sequence.join appends
// to one string, so a long list takes time quadratic in its length)
var chunks = []
var chunk = []
for (i in 0...N.call(12000)) {
  chunk.add("k%(i % 1000)-%(Bench.rnd() % 100)")
  if (chunk.count == 100) {
    chunks.add(chunk.join(","))
    chunk = []
  }
}
chunks.add(chunk.join(","))
var text = chunks.join(",")
var hits = 0
var from = 0
while (true) {
  var at = from < text.count ? text.indexOf("k42-", from) : -1
  if (at < 0) break
  hits = hits + 1
  from = at + 1
}
var upper = chunks[0].replace("k", "K")
System.print("str %(text.count) %(hits) %(upper.count)")
Bench.mix((text.count + hits) % M)

// 6. maps
var map = {}
for (i in 0...N.call(20000)) map["w%(Bench.rnd() % 5000)"] = i
var found = 0
for (i in 0...N.call(20000)) if (map.containsKey("w%(i % 6000)")) found = found + 1
for (i in 0...2500) map.remove("w%(i)")
System.print("map %(map.count) %(found)")
Bench.mix(map.count * 7 + found)

// 7. a stack-machine interpreter: sum of i * i % 7 for i below n
var PUSH = 0
var LOAD = 1
var STORE = 2
var ADD = 3
var MUL = 4
var MOD = 5
var LT = 6
var JZ = 7
var JMP = 8
var HALT = 9
var code = [
  PUSH, 0, STORE, 0,          // i = 0
  PUSH, 0, STORE, 1,          // s = 0
  LOAD, 0, LOAD, 2, LT, JZ, 37,    // while i < n
  LOAD, 1, LOAD, 0, LOAD, 0, MUL, PUSH, 7, MOD, ADD, STORE, 1,
  LOAD, 0, PUSH, 1, ADD, STORE, 0, JMP, 8,
  HALT
]
var run = Fn.new {|n|
  var vars = [0, 0, n]
  var stack = []
  var pc = 0
  while (true) {
    var op = code[pc]
    if (op == PUSH) {
      stack.add(code[pc + 1])
      pc = pc + 2
    } else if (op == LOAD) {
      stack.add(vars[code[pc + 1]])
      pc = pc + 2
    } else if (op == STORE) {
      vars[code[pc + 1]] = stack.removeAt(-1)
      pc = pc + 2
    } else if (op == JZ) {
      pc = stack.removeAt(-1) == 0 ? code[pc + 1] : pc + 2
    } else if (op == JMP) {
      pc = code[pc + 1]
    } else if (op == HALT) {
      return vars[1]
    } else {
      var b = stack.removeAt(-1)
      var a = stack.removeAt(-1)
      if (op == ADD) stack.add(a + b)
      if (op == MUL) stack.add(a * b)
      if (op == MOD) stack.add(a % b)
      if (op == LT) stack.add(a < b ? 1 : 0)
      pc = pc + 1
    }
  }
}
var vm = run.call(N.call(40000))
System.print("vm %(vm)")
Bench.mix(vm % M)

System.print("checksum %(Checksum)")
