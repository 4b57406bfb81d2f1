#!/bin/sh
# notebook.sh - notebooks/profile.ipynb executed headlessly by Debian's
# Jupyter (nbconvert --execute) with a kernel that is Debian's Python
# ($NB_PYTHON, /usr/bin/python3), against a database collected here: a
# sampled and an exact run of one program (build/bench/sha256.wasm, else
# tests/programs/loops.pasm).  The executed notebook must hold no error,
# say its kernel is $NB_PYTHON, have a PNG in each plotting cell, and
# print the CHECK lines of its assertion cells (shares sum to 100%, the
# cumulative saving is the sum of the savings, every sample landed on an
# executed instruction); the committed notebook holds no outputs; a
# missing database stops it with a message naming PULLEY_PROFILE_DB.
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, BENCH_DIR, PROGRAMS,
# NOTEBOOKS, NB_PYTHON.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${BENCH_DIR:?}" "${PROGRAMS:?}"
: "${NOTEBOOKS:?}" "${NB_PYTHON:?}"

. "$(dirname "$0")/lib.sh"
notebook=$NOTEBOOKS/profile.ipynb
install_hint="install Jupyter, pandas and matplotlib: sh scripts/install_deps.sh --test"

[ -x "$NB_PYTHON" ] || fail "no Python at $NB_PYTHON: $install_hint"
"$NB_PYTHON" -c 'import nbconvert, nbformat, ipykernel, pandas, matplotlib' 2>"$tmp/import" ||
    fail "$NB_PYTHON cannot import Jupyter's nbconvert/ipykernel, pandas or matplotlib ($(tail -n 1 "$tmp/import")): $install_hint"

# The committed notebook carries no outputs.
"$NB_PYTHON" - "$notebook" <<'EOF' || fail "$notebook has outputs: clear them before committing"
import json, sys
nb = json.load(open(sys.argv[1]))
sys.exit(any(c.get("outputs") or c.get("execution_count") for c in nb["cells"]
             if c["cell_type"] == "code"))
EOF

# A sampled and an exact run of the same program.
db=$tmp/profile.db
if [ -f "$BENCH_DIR/sha256.wasm" ]; then
    program=$BENCH_DIR/sha256.wasm invoke= arg=4
else
    echo "notebook: no $BENCH_DIR/sha256.wasm (no wasm32-wasi clang?); profiling loops.pasm" >&2
    program=$PROGRAMS/loops.pasm invoke=loops arg=3000
fi
for mode in sampled exact; do
    flag=
    [ $mode = sampled ] || flag=--exact
    "$PULLEY_COLLECT" -o "$db" --label $mode $flag ${invoke:+--invoke "$invoke"} -- "$program" $arg \
        >/dev/null 2>"$tmp/collect" || fail "pulley-collect $flag: $(cat "$tmp/collect")"
done

# A kernel spec naming Debian's Python, in a private Jupyter path; HOME and
# the Jupyter, IPython and matplotlib directories inside $tmp.
mkdir -p "$tmp/jupyter/kernels/pulley-nb" "$tmp/home" "$tmp/out"
cat >"$tmp/jupyter/kernels/pulley-nb/kernel.json" <<EOF
{"argv": ["$NB_PYTHON", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
 "display_name": "Python 3 ($NB_PYTHON)", "language": "python"}
EOF

# run_notebook DB: execute the notebook on DB into $tmp/out/executed.ipynb.
run_notebook() {
    (
        unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
        exec env PATH=/usr/bin:/bin HOME="$tmp/home" JUPYTER_PATH="$tmp/jupyter" \
            JUPYTER_CONFIG_DIR="$tmp/home/jupyter-config" JUPYTER_RUNTIME_DIR="$tmp/home/runtime" \
            IPYTHONDIR="$tmp/home/ipython" MPLCONFIGDIR="$tmp/home/mpl" \
            PYDEVD_DISABLE_FILE_VALIDATION=1 \
            PULLEY_PROFILE_DB="$1" PULLEY_NGRAMS="$PULLEY_NGRAMS" \
            "$NB_PYTHON" -m nbconvert --to notebook --execute \
            --ExecutePreprocessor.kernel_name=pulley-nb --ExecutePreprocessor.timeout=600 \
            --output-dir "$tmp/out" --output executed.ipynb "$notebook"
    )
}

status=0
run_notebook "$db" >"$tmp/nbout" 2>"$tmp/nberr" || status=$?
[ "$status" -eq 0 ] || fail "nbconvert --execute exited with status $status: $(tail -n 40 "$tmp/nberr")"

"$NB_PYTHON" - "$tmp/out/executed.ipynb" "$NB_PYTHON" <<'EOF' || fail "executed notebook: see above"
import json, re, sys
nb = json.load(open(sys.argv[1]))
python = sys.argv[2]
problems = []
text = []
pngs = {}
for cell in nb["cells"]:
    if cell["cell_type"] != "code":
        continue
    tags = cell.get("metadata", {}).get("tags", [])
    for out in cell.get("outputs", []):
        if out["output_type"] == "error":
            problems.append("error in cell %s: %s: %s" % (tags, out["ename"], out["evalue"]))
        if out["output_type"] == "stream":
            text.append("".join(out["text"]) if isinstance(out["text"], list) else out["text"])
        if "image/png" in out.get("data", {}):
            for t in tags:
                pngs[t] = pngs.get(t, 0) + 1
text = "".join(text)

m = re.search(r"^kernel: (\S+) ", text, re.M)
if not m or m.group(1) != python:
    problems.append("the kernel is not %s: %r" % (python, m and m.group(1)))
for tag in ("plot-opcodes", "plot-functions", "plot-savings", "plot-agreement"):
    if pngs.get(tag, 0) < 1:
        problems.append("cell %s drew no PNG" % tag)
for pattern in (r"^CHECK opcode shares sum to 100\.00% over [1-9][0-9]* samples$",
                r"^CHECK hot functions: [1-9][0-9]* functions",
                r"^CHECK proposals: cumulative saving is the running sum of the savings \(sampled, exact\)$",
                r"^CHECK sampled and exact shares each sum to 100% \(.*: run 1 sampled, run 2 exact, [1-9][0-9]* instructions\)$",
                r"^CHECK notebook done$"):
    if not re.search(pattern, text, re.M):
        problems.append("no line matching %s" % pattern)
m = re.search(r"^sampled share on executed instructions: ([0-9.]+)%$", text, re.M)
if not m or float(m.group(1)) < 99.0:
    problems.append("samples on instructions the exact run never executed: %s" % (m and m.group(0)))
for p in problems:
    print("notebook:", p, file=sys.stderr)
if problems:
    print(text, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

# A missing database: the first cell stops with a message naming the variable.
status=0
run_notebook "$tmp/missing.db" >"$tmp/nbout" 2>"$tmp/nberr" || status=$?
[ "$status" -ne 0 ] || fail "the notebook ran without a database"
grep -q "no profile database at $tmp/missing.db: set PULLEY_PROFILE_DB" "$tmp/nberr" ||
    fail "no clear message for a missing database: $(tail -n 20 "$tmp/nberr")"
echo "notebook: ok"
