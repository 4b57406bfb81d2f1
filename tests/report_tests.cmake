# pulley-report tests (analyze/): the hot-code model, the HTML and text
# writers on hand-made profile databases (tests/unit/test_report.c), the
# tool end to end on collected profiles, and the HTML report in headless
# Chromium.  Included at the end of tests/CMakeLists.txt (after the
# collector's tests, which find sqlite3).
pulley_unit_test(test_report SOURCES unit/test_report.c unit/test_ngrams_db.c LIBS pulley_report_tool)
target_compile_definitions(test_report PRIVATE NGRAMS_SCHEMA_SQL="${PROJECT_SOURCE_DIR}/format/schema.sql")

set(report_env
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>"
  "PULLEY_REPORT=$<TARGET_FILE:pulley-report>"
  "SQLITE3=${PULLEY_SQLITE3}"
  "PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs")
add_test(NAME e2e_report_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/report_cli.sh)
set_tests_properties(e2e_report_cli PROPERTIES ENVIRONMENT "${report_env}")

# Not REQUIRED: without a browser the test runs and fails, saying so.
find_program(PULLEY_CHROMIUM NAMES chromium chromium-browser google-chrome)
add_test(NAME e2e_report_browser COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/report_browser.sh)
set_tests_properties(e2e_report_browser PROPERTIES ENVIRONMENT "${report_env};CHROMIUM=${PULLEY_CHROMIUM}")

# Both readers at the edges: read-only, damaged, unfinished runs, run
# selection, a full disk.
add_test(NAME e2e_read_edges COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/read_edges.sh)
set_tests_properties(e2e_read_edges PROPERTIES ENVIRONMENT
  "${report_env};PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>")
