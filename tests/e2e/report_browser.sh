#!/bin/sh
# report_browser.sh - the HTML report of a real profile opened in headless
# Chromium, with the network off: the DOM it builds has the hot function's
# heading and its instruction rows with heat values, every proposal's
# places link to rows that exist, and a screenshot of the page is a PNG of
# the requested size with real content.  Chromium missing is a failure
# (scripts/install_deps.sh --test installs it), never a skip.
# Environment: PULLEY_COLLECT, PULLEY_REPORT, PROGRAMS, CHROMIUM (optional:
# Programs are collected --no-fuse: the checks are of the baseline code.
# the browser to use; else chromium, chromium-browser or google-chrome).
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_REPORT:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"

browser=${CHROMIUM:-}
case $browser in *NOTFOUND*) browser= ;; esac
if [ -z "$browser" ]; then
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null; then
            browser=$(command -v "$b")
            break
        fi
    done
fi
[ -n "$browser" ] ||
    fail "no Chromium found (install it: sh scripts/install_deps.sh --test, or set CHROMIUM)"
[ -x "$browser" ] || fail "the browser $browser is not an executable"

# chrome ARGS...: headless Chromium with a private profile.
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/chrome" --hide-scrollbars "$@" 2>>"$tmp/chrome.log"
}

"$PULLEY_COLLECT" --no-fuse -o "$tmp/profile.db" --invoke loops -- "$PROGRAMS/loops.pasm" 4000 \
    >/dev/null 2>"$tmp/collect" || fail "pulley-collect: $(cat "$tmp/collect")"
"$PULLEY_REPORT" "$tmp/profile.db" -o "$tmp/report.html" 2>"$tmp/err" ||
    fail "pulley-report: $(cat "$tmp/err")"
grep -Eiq 'https?:' "$tmp/report.html" && fail "the report refers to the network"

# ---- the DOM as Chromium built it ------------------------------------------
chrome --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" ||
    fail "chromium --dump-dom failed: $(tail -5 "$tmp/chrome.log")"
grep -q '<h1>Hot code: loops.pasm</h1>' "$tmp/dom.html" || fail "no page heading in the DOM"
grep -Eq '<section class="func" id="f[0-9]+">' "$tmp/dom.html" || fail "no function section in the DOM"
grep -q '<h2>#1 <span class="fname mono">loops</span> <span class="fshare">100.00%</span></h2>' \
    "$tmp/dom.html" || fail "no heading of the hot function in the DOM: $(grep -o '<h2>.*</h2>' "$tmp/dom.html")"
# Instruction rows with a heat class, a share and the disassembly: the
# inner loop's five hottest instructions are all there and warm.
grep -Eo '<tr id="f[0-9]+-0x[0-9a-f]+" class="h[1-7]" data-share="[0-9.]+">.*</tr>' "$tmp/dom.html" >"$tmp/rows"
for ins in 'xlt64_s x4, x3, x0' 'br_if_not x4, +23' 'xmul64 x4, x2, x3' 'xadd64 x1, x1, x4' 'xadd64 x3, x3, x5'; do
    grep -q "<td class=\"ins\">$ins</td>" "$tmp/rows" || fail "no heated row for $ins in the DOM"
done
hottest=$(sed -n 's/.*data-share="\([0-9.]*\)".*/\1/p' "$tmp/rows" | sort -g | tail -1)
[ "$(grep -c "class=\"h7\" data-share=\"$hottest\"" "$tmp/rows")" -ge 1 ] || fail "the hottest row is not at the top heat"
grep -q 'class="back" href="#f[0-9]*-0x16"' "$tmp/dom.html" || fail "no back-edge to the inner loop head"
# Every place of a proposal names a row the browser has.
grep -o 'href="#f[0-9]*-0x[0-9a-f]*"' "$tmp/dom.html" | sort -u | sed 's/href="#\(.*\)"/\1/' >"$tmp/places"
[ -s "$tmp/places" ] || fail "no links to instructions"
while read -r id; do
    grep -q "<tr id=\"$id\"" "$tmp/dom.html" || fail "link #$id has no row in the DOM"
done <"$tmp/places"

# ---- a screenshot -----------------------------------------------------------
chrome --screenshot="$tmp/shot.png" --window-size=1200,1600 "file://$tmp/report.html" >/dev/null ||
    fail "chromium --screenshot failed: $(tail -5 "$tmp/chrome.log")"
[ -f "$tmp/shot.png" ] || fail "no screenshot written"
# PNG signature, then the IHDR chunk: width and height, big-endian.
[ "$(od -An -tx1 -N8 "$tmp/shot.png" | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
set -- $(od -An -tu1 -j16 -N8 "$tmp/shot.png")
width=$(($1 * 16777216 + $2 * 65536 + $3 * 256 + $4))
height=$(($5 * 16777216 + $6 * 65536 + $7 * 256 + $8))
[ "$width" = 1200 ] && [ "$height" = 1600 ] || fail "screenshot is ${width}x$height, expected 1200x1600"
size=$(wc -c <"$tmp/shot.png")
[ "$size" -gt 30000 ] || fail "screenshot of $size bytes: an empty page?"
echo "report_browser: ok"
