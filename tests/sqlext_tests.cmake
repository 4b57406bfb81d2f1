# The SQLite extension (sql/ext): its decoding core alone, and the module
# loaded into the real sqlite3 shell over real profiles.  Included at the
# end of tests/CMakeLists.txt (after collect_tests.cmake: PULLEY_SQLITE3).
pulley_unit_test(test_sqlext_decode SOURCES unit/test_sqlext_decode.c LIBS pulley_sqlext_core)

# A sanitized module needs the sanitizer runtime in the process that loads
# it; the sqlite3 shell is not sanitized, so it preloads the runtime.
set(sqlext_preload "")
if(PULLEY_SANITIZE)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    set(asan_runtime libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(asan_runtime libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${asan_runtime}
                  OUTPUT_VARIABLE sqlext_preload OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${sqlext_preload}" OR NOT EXISTS "${sqlext_preload}")
    message(FATAL_ERROR "sql/ext tests: the sanitizer runtime ${asan_runtime} was not found; "
                        "the sanitized extension cannot be loaded into sqlite3")
  endif()
endif()

add_test(NAME e2e_sqlext COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sqlext.sh)
set_tests_properties(e2e_sqlext PROPERTIES ENVIRONMENT
  "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;SQLITE3=${PULLEY_SQLITE3};\
PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;\
SQLEXT=$<TARGET_FILE_DIR:pulley_sqlext>/pulley_sqlext;SQLEXT_PRELOAD=${sqlext_preload}")
# The extension over an outside interpreter's profile (its stored rows).
set_property(TEST e2e_installed_library APPEND PROPERTY ENVIRONMENT
  "SQLEXT=$<TARGET_FILE_DIR:pulley_sqlext>/pulley_sqlext;SQLEXT_PRELOAD=${sqlext_preload}")
# Under ThreadSanitizer the shell cannot load the extension (its runtime,
# preloaded into the uninstrumented sqlite3, crashes the shell): the
# library's test skips that part, saying so.  The extension has no threads.
if(PULLEY_TSAN)
  set_property(TEST e2e_installed_library APPEND PROPERTY ENVIRONMENT
    "SQLEXT_SKIP=a ThreadSanitizer build")
endif()

# The readers on hostile profile databases (tests/hostile/hostile_db.py):
# every case refused or handled with its message, never read as normal,
# never a crash; the extension refuses what it reads or goes on.
if(PULLEY_PYTHON3)
  add_test(NAME e2e_hostile_db COMMAND ${PULLEY_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/hostile_db.py)
  set_tests_properties(e2e_hostile_db PROPERTIES ENVIRONMENT
    "PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;PULLEY_NGRAMS=$<TARGET_FILE:pulley-ngrams>;\
PULLEY_REPORT=$<TARGET_FILE:pulley-report>;SQLITE3=${PULLEY_SQLITE3};\
PROGRAMS=${CMAKE_CURRENT_SOURCE_DIR}/programs;\
SQLEXT=$<TARGET_FILE_DIR:pulley_sqlext>/pulley_sqlext;SQLEXT_PRELOAD=${sqlext_preload}")
endif()
