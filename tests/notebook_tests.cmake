# Notebooks (notebooks/) and the quality scripts (bench/quality/).
# Included, when present, at the end of tests/CMakeLists.txt.
#
#   e2e_notebook         notebooks/profile.ipynb executed headlessly by
#                        Debian's Jupyter (nbconvert --execute, a kernel that
#                        is PULLEY_NB_PYTHON) on a sampled and an exact run
#                        collected by the test
#   e2e_quality_units    families.py and fidelity.py on hand-written inputs
#   e2e_quality_scripts  rediscover.sh and fidelity.sh on small benchmarks
#                        (skipped without the .wasm benchmarks)
#
# The notebook needs Debian's python3 with jupyter-nbconvert, python3-nbformat,
# python3-ipykernel, python3-pandas and python3-matplotlib
# (sh scripts/install_deps.sh --test installs them); a python3 found first on
# PATH (pyenv, a virtualenv) usually lacks them, hence the explicit path.
set(PULLEY_NB_PYTHON /usr/bin/python3 CACHE FILEPATH
    "Python with Jupyter (nbconvert, ipykernel), pandas and matplotlib: the notebook test's kernel")

set(quality_env
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>"
  "PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>"
  "PULLEY_DIS=$<TARGET_FILE:pulley-dis>"
  "BENCH_DIR=${PROJECT_BINARY_DIR}/bench"
  "PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs"
  "NOTEBOOKS=${PROJECT_SOURCE_DIR}/notebooks"
  "QUALITY=${PROJECT_SOURCE_DIR}/bench/quality"
  "NB_PYTHON=${PULLEY_NB_PYTHON}"
  "PYTHON=${PULLEY_NB_PYTHON}")

foreach(script notebook quality_units quality_scripts)
  add_test(NAME e2e_${script} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${script}.sh)
  set_tests_properties(e2e_${script} PROPERTIES ENVIRONMENT "${quality_env}" TIMEOUT 900)
endforeach()
set_tests_properties(e2e_quality_scripts PROPERTIES SKIP_RETURN_CODE 77)
