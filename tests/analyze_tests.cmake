# pulley-ngrams tests (analyze/): mining and proposals on hand-made profile
# databases built with format/schema.sql, the shared macro-op model (fusion/),
# and the tool end to end on a collected profile.  Included at the end of
# tests/CMakeLists.txt.
# The decoder of stored opcode rows (format/opcode_rows.c,
# opcode_decode.c), shared with the SQLite extension: pure C, tested alone.
pulley_unit_test(test_opcode_rows SOURCES unit/test_opcode_rows.c LIBS pulley_format)
# The stored text lists (format/stored_text.c) the collector writes and
# the readers parse.
pulley_unit_test(test_stored_text SOURCES unit/test_stored_text.c LIBS pulley_format)

foreach(t test_ngrams_mining test_ngrams_read)
  pulley_unit_test(${t} SOURCES unit/${t}.c unit/test_ngrams_db.c LIBS pulley_ngrams_tool)
  target_compile_definitions(${t} PRIVATE NGRAMS_SCHEMA_SQL="${PROJECT_SOURCE_DIR}/format/schema.sql"
    NGRAMS_SCHEMA_V1_SQL="${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_schema_v1.sql")
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/format) # func_checksum.h
endforeach()
# What the readers must not take for a normal profile: a newer schema,
# damaged opcode tables, lengths whose sums would overflow.
pulley_unit_test(test_read_borders SOURCES unit/test_read_borders.c unit/test_ngrams_db.c
  LIBS pulley_ngrams_tool)
target_compile_definitions(test_read_borders PRIVATE
  NGRAMS_SCHEMA_SQL="${PROJECT_SOURCE_DIR}/format/schema.sql")
# Runs pooled as they are read: weights and report shares as if kept apart.
pulley_unit_test(test_run_pool SOURCES unit/test_run_pool.c unit/test_ngrams_db.c
  LIBS pulley_ngrams_tool pulley_report_tool)
target_compile_definitions(test_run_pool PRIVATE NGRAMS_SCHEMA_SQL="${PROJECT_SOURCE_DIR}/format/schema.sql"
  NGRAMS_SCHEMA_V1_SQL="${CMAKE_CURRENT_SOURCE_DIR}/e2e/collect_schema_v1.sql")
target_include_directories(test_run_pool PRIVATE ${PROJECT_SOURCE_DIR}/format) # func_checksum.h
pulley_unit_test(test_fusion SOURCES unit/test_fusion.c LIBS pulley_fusion)
# Registers of any kind and number, windows of registers, liveness.
pulley_unit_test(test_registers SOURCES unit/test_registers.c LIBS pulley_analyze)

add_test(NAME e2e_ngrams_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/ngrams_cli.sh)
set_tests_properties(e2e_ngrams_cli PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs")

# make_big_profile (bench/ngrams_scale/, the generator behind
# bench/ngrams_scale.sh) at a small size, read by pulley-ngrams.
add_test(NAME e2e_ngrams_big_profile COMMAND sh ${PROJECT_SOURCE_DIR}/bench/ngrams_scale/smoke.sh)
set_tests_properties(e2e_ngrams_big_profile PROPERTIES ENVIRONMENT
  "MAKE_BIG_PROFILE=$<TARGET_FILE:make_big_profile>;PEAK_RSS=$<TARGET_FILE:peak_rss>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>")

# The closed loop: emit, generate, evaluate; in a macro build, fused runs
# measured against the prediction, and mining the macro profile again.
set(build_macros "")
if(PULLEY_MACROS)
  get_filename_component(build_macros "${PULLEY_MACROS}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
endif()
# Two tests: what every build checks (emit), and what only a macro build
# can (fused: skipped, exit 77, in a baseline build).
foreach(part emit fused)
  add_test(NAME e2e_macro_loop_${part} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/macro_loop.sh ${part})
  set_tests_properties(e2e_macro_loop_${part} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
    "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;PULLEY_RUN=$<TARGET_FILE:pulley-run>;PULLEY_MACROGEN=$<TARGET_FILE:pulley-macrogen>;SQLITE3=${PULLEY_SQLITE3};PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;VM_OPS=${PROJECT_SOURCE_DIR}/interp/vm_ops.h;MACROS=${build_macros}")
endforeach()

# A .macros set the generator refuses, --evaluate refuses with the same
# FILE:LINE message (the one set of checks, fusion/macro_check.c).
add_test(NAME e2e_macro_set_checks COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/macro_set_checks.sh)
set_tests_properties(e2e_macro_set_checks PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;PULLEY_MACROGEN=$<TARGET_FILE:pulley-macrogen>;PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;VM_OPS=${PROJECT_SOURCE_DIR}/interp/vm_ops.h")

# An instruction set that is not Pulley's, written through the public
# library and read back by the analysis from the stored rows alone.
pulley_unit_test(test_foreign_isa SOURCES unit/test_foreign_isa.c LIBS pulley_analyze pulley_collect)
set_tests_properties(test_foreign_isa PROPERTIES LABELS library) # the library writes it
if(PULLEY_TSAN)
  set_property(TEST test_foreign_isa APPEND PROPERTY ENVIRONMENT "${pulley_tsan_env}") # collect_tests
endif()

# A fleet's collection (bench/fleet/make_fleet.py) gives the same
# proposals, evaluation and report in one database as over several.
add_test(NAME e2e_fleet_layout COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/fleet_layout.sh)
set_tests_properties(e2e_fleet_layout PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;PULLEY_REPORT=$<TARGET_FILE:pulley-report>;PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;MAKE_FLEET=${PROJECT_SOURCE_DIR}/bench/fleet/make_fleet.py")

# A reader of the report that stops early (| head -1) or has gone: the
# tools exit 0 without a word, and --emit-macros's file is written whole.
find_program(PULLEY_PYTHON3 python3)
if(PULLEY_PYTHON3)
  add_test(NAME e2e_closed_pipe COMMAND ${PULLEY_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/closed_pipe.py)
  set_tests_properties(e2e_closed_pipe PROPERTIES ENVIRONMENT
    "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;PULLEY_REPORT=$<TARGET_FILE:pulley-report>;PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs")
endif()
