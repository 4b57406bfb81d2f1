// bench.js - the script quickjs_bench.c evaluates: the work of a JavaScript
// engine (property access, closures, strings, sorting, a small bytecode
// interpreter, JSON, regular expressions, Map and Set), each section
// printing a checksum that does not depend on the engine or the machine.
// SCALE (set by the driver from its argument) multiplies every loop count.

var seed = 12345;
function rand() { // a 31-bit LCG: the same numbers everywhere
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed;
}
function mix(h, v) { return (Math.imul(h ^ v, 16777619) + 0x9e3779b9) | 0; }

function objects(n) { // constructors, prototypes, property access
    function Vec(x, y) { this.x = x; this.y = y; }
    Vec.prototype.add = function (o) { return new Vec(this.x + o.x, this.y + o.y); };
    Vec.prototype.dot = function (o) { return this.x * o.x + this.y * o.y; };
    var acc = new Vec(0, 0), h = 0;
    for (var i = 0; i < n; i++) {
        var v = new Vec(i & 255, (i >> 3) & 127);
        acc = acc.add(v);
        h = mix(h, acc.dot(v) | 0);
        var o = { a: i, b: i * 2, c: "k" + (i & 15) };
        o["d" + (i & 7)] = o.a + o.b;
        for (var k in o) h = mix(h, k.length);
    }
    return h;
}

function closures(n) { // closures and higher-order functions
    function counter(start) {
        var c = start;
        return { inc: function (d) { c += d; return c; }, get: function () { return c; } };
    }
    var cs = [], h = 0;
    for (var i = 0; i < 64; i++) cs.push(counter(i));
    for (var j = 0; j < n; j++) {
        var c = cs[j & 63];
        h = mix(h, c.inc(j & 7));
    }
    var arr = [];
    for (var m = 0; m < 2000; m++) arr.push(m);
    for (var r = 0; r < (n >> 12); r++) {
        var s = arr.map(function (x) { return x * 3 + r; })
            .filter(function (x) { return (x & 3) !== 0; })
            .reduce(function (a, b) { return (a + b) | 0; }, 0);
        h = mix(h, s);
    }
    return h;
}

function strings(n) { // string building, slicing, searching
    var parts = [], h = 0;
    for (var i = 0; i < n; i++) parts.push("item" + i + ":" + (i * 7 % 13));
    var s = parts.join(",");
    h = mix(h, s.length);
    var pieces = s.split(",");
    for (var j = 0; j < pieces.length; j += 3) {
        var p = pieces[j];
        h = mix(h, p.charCodeAt(p.length - 1));
        h = mix(h, p.indexOf(":"));
        h = mix(h, p.toUpperCase().charCodeAt(0));
    }
    var t = "";
    for (var k = 0; k < (n >> 2); k++) t += String.fromCharCode(97 + k % 26);
    h = mix(h, t.lastIndexOf("xyz"));
    h = mix(h, t.replace(/abc/g, "-").length);
    return h;
}

function sorting(n) { // Array.prototype.sort with comparators
    var a = [], h = 0;
    for (var i = 0; i < n; i++) a.push(rand() % 100000);
    a.sort(function (x, y) { return x - y; });
    for (var j = 0; j < a.length; j += 97) h = mix(h, a[j]);
    var recs = [];
    for (var k = 0; k < (n >> 2); k++) recs.push({ name: "n" + (rand() % 1000), v: rand() % 100 });
    recs.sort(function (p, q) {
        return p.v !== q.v ? q.v - p.v : p.name < q.name ? -1 : p.name > q.name ? 1 : 0;
    });
    for (var m = 0; m < recs.length; m += 31) h = mix(h, recs[m].v + recs[m].name.length);
    return h;
}

function interpreter(n) { // a stack-machine interpreter loop: sum of primes
    // ops: 0 push k, 1 load r, 2 store r, 3 add, 4 sub, 5 mod, 6 jz t,
    // 7 jmp t, 8 lt, 9 halt
    var code = [
        0, 2, 2, 0,                 // 0: i = 2
        0, 0, 2, 2,                 // 4: sum = 0
        1, 0, 1, 3, 8, 6, 58,       // 8: if !(i < limit) goto 58
        0, 2, 2, 1,                 // 15: d = 2
        1, 1, 1, 0, 8, 6, 42,       // 19: if !(d < i) goto 42 (a prime)
        1, 0, 1, 1, 5, 6, 49,       // 26: if i % d == 0 goto 49
        1, 1, 0, 1, 3, 2, 1, 7, 19, // 33: d = d + 1; goto 19
        1, 2, 1, 0, 3, 2, 2,        // 42: sum = sum + i
        1, 0, 0, 1, 3, 2, 0, 7, 8,  // 49: i = i + 1; goto 8
        9                           // 58: halt
    ];
    // r0 = i, r1 = d, r2 = sum, r3 = limit
    var regs = [0, 0, 0, n], stack = [], pc = 0, steps = 0;
    for (;;) {
        var op = code[pc++];
        steps++;
        if (op === 0) stack.push(code[pc++]);
        else if (op === 1) stack.push(regs[code[pc++]]);
        else if (op === 2) regs[code[pc++]] = stack.pop();
        else if (op === 3) { var b = stack.pop(); stack.push((stack.pop() + b) | 0); }
        else if (op === 4) { var b2 = stack.pop(); stack.push((stack.pop() - b2) | 0); }
        else if (op === 5) { var b3 = stack.pop(); stack.push(stack.pop() % b3); }
        else if (op === 6) { var t = code[pc++]; if (stack.pop() === 0) pc = t; }
        else if (op === 7) pc = code[pc];
        else if (op === 8) { var b4 = stack.pop(); stack.push(stack.pop() < b4 ? 1 : 0); }
        else break;
    }
    return mix(regs[2], steps);
}

function json(n) { // JSON.stringify and JSON.parse of a nested document
    var doc = { users: [] }, h = 0;
    for (var i = 0; i < n; i++) {
        doc.users.push({ id: i, name: "user" + i, tags: ["a" + (i % 5), "b" + (i % 3)],
            score: (i * 37) % 101, active: (i & 1) === 0, nested: { depth: i % 4, list: [i, i + 1] } });
    }
    for (var r = 0; r < 4; r++) {
        var text = JSON.stringify(doc);
        h = mix(h, text.length);
        var back = JSON.parse(text);
        var total = 0;
        for (var j = 0; j < back.users.length; j++) {
            var u = back.users[j];
            if (u.active) total += u.score + u.nested.list[1] + u.tags[0].length;
        }
        h = mix(h, total);
        doc.users[r % n].score += 1;
    }
    return h;
}

function regexps(n) { // regular expression matching
    var re = /([a-z]+)(\d+)@([a-z]+)\.(com|org)/, words = [], h = 0;
    for (var i = 0; i < n; i++) {
        var dom = ["x", "yz", "abc"][i % 3];
        words.push("user" + String.fromCharCode(97 + i % 26) + i + "@" + dom + (i % 2 ? ".com" : ".org"));
    }
    for (var j = 0; j < words.length; j++) {
        var m = re.exec(words[j]);
        if (m) h = mix(h, m[1].length + m[2].length * 7 + m[3].length * 31);
    }
    var text = words.join(" ");
    var count = 0, mm, g = /\d+@yz/g;
    while ((mm = g.exec(text)) !== null) count += mm[0].length;
    return mix(h, count);
}

function maps(n) { // Map and Set with string and number keys
    var m = new Map(), s = new Set(), h = 0;
    for (var i = 0; i < n; i++) {
        var k = "k" + (rand() % 4096);
        m.set(k, (m.get(k) || 0) + 1);
        s.add(rand() % 8192);
    }
    m.forEach(function (v, k) { h = mix(h, v * k.length); });
    h = mix(h, m.size);
    h = mix(h, s.size);
    for (var j = 0; j < 8192; j += 5) if (s.has(j)) h = mix(h, j);
    return h;
}

var sections = [
    ["objects", objects, 2000], ["closures", closures, 50000], ["strings", strings, 15000],
    ["sorting", sorting, 12000], ["interpreter", interpreter, 300], ["json", json, 300],
    ["regexps", regexps, 5000], ["maps", maps, 12000]
];
var total = 0;
for (var si = 0; si < sections.length; si++) {
    var sec = sections[si];
    var h = sec[1](Math.max(1, Math.floor(sec[2] * SCALE))) >>> 0;
    total = mix(total, h);
    print(sec[0] + ": " + h.toString(16));
}
print("checksum: " + (total >>> 0).toString(16));
