# The setup scripts (scripts/) and bench scripts that need no build.
# Included at the end of tests/CMakeLists.txt.
#
#   e2e_install_deps_lock  install_deps.sh waits, within a bound, for another
#                          package manager's lock (apt-get stood in for)
#   e2e_compare_runtimes_cg  bench/compare_runtimes.sh -c and -C with a
#                          stand-in valgrind and runtimes: options, tables,
#                          NAME.cg.args, refusals
add_test(NAME e2e_install_deps_lock COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/install_deps_lock.sh)
set_tests_properties(e2e_install_deps_lock PROPERTIES ENVIRONMENT
  "SCRIPTS=${PROJECT_SOURCE_DIR}/scripts")
add_test(NAME e2e_compare_runtimes_cg COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/compare_runtimes_cg.sh)
set_tests_properties(e2e_compare_runtimes_cg PROPERTIES ENVIRONMENT
  "BENCH=${PROJECT_SOURCE_DIR}/bench")
