# Collector tests (collect/, sql/): the sample codec, the agent against a
# synthetic VM, and pulley-collect end to end.  Included at the end of
# tests/CMakeLists.txt.
pulley_unit_test(test_collect_codec SOURCES unit/test_collect_codec.c LIBS pulley_collect m)
pulley_unit_test(test_collect_agent SOURCES unit/test_collect_agent.c LIBS pulley_collect m)
pulley_unit_test(test_collect_misuse SOURCES unit/test_collect_misuse.c LIBS pulley_collect)
pulley_unit_test(test_collect_code_life SOURCES unit/test_collect_code_life.c LIBS pulley_collect)
# The optimal cover as the library offers it (include/pulley/fusion.h).
pulley_unit_test(test_fusion_api SOURCES unit/test_fusion_api.c LIBS pulley_collect)

find_program(PULLEY_SQLITE3 sqlite3 REQUIRED)
foreach(script collect_cli collect_reliability)
  add_test(NAME e2e_${script} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${script}.sh)
  set_tests_properties(e2e_${script} PROPERTIES ENVIRONMENT
    "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;SQLITE3=${PULLEY_SQLITE3};PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;QUERIES=${PROJECT_SOURCE_DIR}/sql/queries")
endforeach()

# pulley-collect on .wasm programs under WASI (tests/wasm/*.wat, built by
# the script with wat2wasm; PULLEY_WAT2WASM comes from wasm_tests.cmake).
add_test(NAME e2e_collect_wasm COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_wasm.sh)
set_tests_properties(e2e_collect_wasm PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;SQLITE3=${PULLEY_SQLITE3};WAT2WASM=${PULLEY_WAT2WASM};WAT=${CMAKE_CURRENT_SOURCE_DIR}/wasm")

# pulley-collect at the edges: a file size limit, a closed pipe, an empty
# --output, SIGKILL.
add_test(NAME e2e_collect_edges COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_edges.sh)
set_tests_properties(e2e_collect_edges PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;SQLITE3=${PULLEY_SQLITE3};WAT2WASM=${PULLEY_WAT2WASM};WAT=${CMAKE_CURRENT_SOURCE_DIR}/wasm")

# pulley-collect --exact (the counting build): exact counts in SQL.
add_test(NAME e2e_collect_exact COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_exact.sh)
set_tests_properties(e2e_collect_exact PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;SQLITE3=${PULLEY_SQLITE3};PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;WAT2WASM=${PULLEY_WAT2WASM}")

# The sampling tests measure time: run them alone, so that a machine busy
# with other tests does not starve the sampler or the synthetic VM.
set_tests_properties(test_collect_agent e2e_collect_cli e2e_collect_reliability e2e_collect_wasm
                     e2e_collect_edges
                     PROPERTIES RUN_SERIAL TRUE)

# The installed library, used by an interpreter outside the source tree
# (pkg-config and find_package), and its profile read by the installed tools.
# In a sanitizer build the library is instrumented, so the outside
# interpreter is compiled with the same flags.
set(outside_cflags "")
if(PULLEY_SANITIZE)
  set(outside_cflags "-fsanitize=address,undefined")
elseif(PULLEY_TSAN)
  set(outside_cflags "-fsanitize=thread")
endif()
add_test(NAME e2e_installed_library COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/installed_library.sh)
set_tests_properties(e2e_installed_library PROPERTIES ENVIRONMENT
  "BUILD=${PROJECT_BINARY_DIR};SRC=${PROJECT_SOURCE_DIR};CC=${CMAKE_C_COMPILER};OUTSIDE_CFLAGS=${outside_cflags}")
# The whole loop for an interpreter the toolkit was not written for:
# tests/outside/regvm profiled, its macro ops proposed, generated and fused
# through the installed library and tools, dispatches as predicted.
add_test(NAME e2e_outside_loop COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/outside_loop.sh)
set_tests_properties(e2e_outside_loop PROPERTIES ENVIRONMENT
  "BUILD=${PROJECT_BINARY_DIR};SRC=${PROJECT_SOURCE_DIR};CC=${CMAKE_C_COMPILER};OUTSIDE_CFLAGS=${outside_cflags};SQLITE3=${PULLEY_SQLITE3}")

# A run in which the interpreter broke one rule of the header, for each
# rule: refused at the call, and the run still read by the tools.
add_executable(misuse_interp outside/misuse_interp.c)
target_include_directories(misuse_interp PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(misuse_interp PRIVATE pulleyprof)
add_test(NAME e2e_collect_misuse COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_misuse.sh)
set_tests_properties(e2e_collect_misuse PROPERTIES ENVIRONMENT
  "MISUSE_INTERP=$<TARGET_FILE:misuse_interp>;PULLEY_REPORT=$<TARGET_FILE:pulley-report>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;SQLITE3=${PULLEY_SQLITE3}")

# The profiling library's tests (libpulleyprof: collector, agent, catalog,
# sampler), which a ThreadSanitizer build runs (ctest -L library; .ci/run).
set_tests_properties(test_collect_codec test_collect_agent test_collect_misuse
  test_collect_code_life test_fusion_api e2e_collect_cli e2e_collect_reliability
  e2e_collect_wasm e2e_collect_edges e2e_collect_exact e2e_collect_misuse e2e_installed_library
  PROPERTIES LABELS library)
# A report ends the process (status 66) and fails the test; known
# reports that are no race are in tests/tsan.supp, each saying why.
set(pulley_tsan_env
  "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
if(PULLEY_TSAN)
  get_property(library_tests DIRECTORY PROPERTY TESTS)
  foreach(t ${library_tests})
    get_test_property(${t} LABELS labels)
    if(labels MATCHES "library")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "${pulley_tsan_env}")
    endif()
  endforeach()
endif()
