# WASI host tests (interp/wasi).  Included at the end of tests/CMakeLists.txt.
foreach(t test_wasi_core test_wasi_fd test_wasi_path)
  pulley_unit_test(${t} SOURCES unit/${t}.c LIBS pulley_wasi)
endforeach()

# A C program for wasm32-wasi (tests/wasi/guest_links.c) making links in its
# granted directory under pulley-run: those leading out refused, nothing
# left on the host.  Registered when clang can build for wasm32-wasi
# (wasi-libc) and pulley-run runs WebAssembly.
find_program(PULLEY_WASI_CC NAMES clang clang-16 clang-15 clang-14
             DOC "clang that builds the WASI test programs for wasm32-wasi")
get_target_property(pulley_run_libs pulley-run LINK_LIBRARIES)
if(PULLEY_WASI_CC AND pulley_wasm_run IN_LIST pulley_run_libs)
  set(probe ${CMAKE_CURRENT_BINARY_DIR}/wasi_cc_probe)
  file(WRITE ${probe}.c "#include <unistd.h>\nint main(void) { return symlink(\"a\", \"b\"); }\n")
  execute_process(COMMAND ${PULLEY_WASI_CC} --target=wasm32-wasi ${probe}.c -o ${probe}.wasm
                  RESULT_VARIABLE probe_status OUTPUT_QUIET ERROR_QUIET)
  if(probe_status EQUAL 0)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/wasi/guest_links.wasm)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/wasi
      COMMAND ${PULLEY_WASI_CC} --target=wasm32-wasi -O1 -std=c11 -Wall -Wextra
              ${CMAKE_CURRENT_LIST_DIR}/wasi/guest_links.c -o ${out}
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/wasi/guest_links.c VERBATIM)
    add_custom_target(test_wasi_programs ALL DEPENDS ${out})
    add_test(NAME wasi_guest_links COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/wasi/guest_links.sh)
    set_tests_properties(wasi_guest_links PROPERTIES ENVIRONMENT
      "PULLEY_RUN=$<TARGET_FILE:pulley-run>;GUEST_LINKS=${out}")
  else()
    message(STATUS "WASI tests: ${PULLEY_WASI_CC} cannot build for wasm32-wasi; guest_links not registered")
  endif()
endif()
