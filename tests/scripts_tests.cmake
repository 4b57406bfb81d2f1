# The setup scripts (scripts/).  Included at the end of tests/CMakeLists.txt.
#
#   e2e_install_deps_lock  install_deps.sh waits, within a bound, for another
#                          package manager's lock (apt-get stood in for)
add_test(NAME e2e_install_deps_lock COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/install_deps_lock.sh)
set_tests_properties(e2e_install_deps_lock PROPERTIES ENVIRONMENT
  "SCRIPTS=${PROJECT_SOURCE_DIR}/scripts")
