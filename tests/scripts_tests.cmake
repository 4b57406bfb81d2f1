# The setup scripts (scripts/) and two bench scripts (stand-ins for valgrind).
# Included at the end of tests/CMakeLists.txt.
#
#   e2e_install_deps_lock  install_deps.sh waits, within a bound, for another
#                          package manager's lock (apt-get stood in for)
#   e2e_compare_runtimes_cg  bench/compare_runtimes.sh -c and -C with a
#                          stand-in valgrind and runtimes: options, tables,
#                          NAME.cg.args, refusals
#   e2e_where_lost_report  bench/where_lost.py on exact counts of a .pasm
#                          program and set handler and wasm3 costs
add_test(NAME e2e_install_deps_lock COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/install_deps_lock.sh)
set_tests_properties(e2e_install_deps_lock PROPERTIES ENVIRONMENT
  "SCRIPTS=${PROJECT_SOURCE_DIR}/scripts")
add_test(NAME e2e_compare_runtimes_cg COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/compare_runtimes_cg.sh)
set_tests_properties(e2e_compare_runtimes_cg PROPERTIES ENVIRONMENT
  "BENCH=${PROJECT_SOURCE_DIR}/bench")
if(PULLEY_PYTHON3)
  add_test(NAME e2e_where_lost_report COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/where_lost_report.sh)
  set_tests_properties(e2e_where_lost_report PROPERTIES ENVIRONMENT
    "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;BENCH=${PROJECT_SOURCE_DIR}/bench;PYTHON=${PULLEY_PYTHON3}")
endif()
