# Wasm front-end tests: the decoder and validator (interp/wasm).
# Included at the end of tests/CMakeLists.txt.

pulley_unit_test(test_wasm_decode SOURCES unit/test_wasm_decode.c LIBS pulley_wasm)
pulley_unit_test(test_wasm_validate SOURCES unit/test_wasm_validate.c LIBS pulley_wasm)
pulley_unit_test(test_wasm_hostile SOURCES unit/test_wasm_hostile.c LIBS pulley_wasm)
# The spec runner's script reader (interp/wasm/spec).
pulley_unit_test(test_spec_json SOURCES unit/test_spec_json.c LIBS pulley_spec_script)
pulley_unit_test(test_spec_values SOURCES unit/test_spec_values.c LIBS pulley_spec_script)

# The spec test suite, for the decoder and validator alone: every module
# must validate, every invalid or (binary) malformed one must be rejected.
set(PULLEY_SPEC_TESTS_DIR "" CACHE PATH
    "Directory of WebAssembly spec test scripts (.wast); empty: spec tests not registered")
add_executable(wasm_spec_validate ${CMAKE_CURRENT_LIST_DIR}/wasm/spec_validate.c)
target_link_libraries(wasm_spec_validate PRIVATE pulley_spec_script)
if(PULLEY_SPEC_TESTS_DIR)
  find_program(PULLEY_WAST2JSON wast2json REQUIRED)
  add_test(NAME wasm_spec_validate
           COMMAND wasm_spec_validate --wast2json ${PULLEY_WAST2JSON} ${PULLEY_SPEC_TESTS_DIR})
  # The whole suite on the VM: every command but the text-format
  # assert_malformed ones must pass (about 25 s in a sanitizer build).
  add_test(NAME wasm_spec
           COMMAND pulley-spec --wast2json ${PULLEY_WAST2JSON} -v ${PULLEY_SPEC_TESTS_DIR})
  set_tests_properties(wasm_spec PROPERTIES TIMEOUT 300)
endif()

# pulley-spec judges right: a script whose commands must all pass and one
# whose commands must all fail, written here (tests/wasm/spec).
find_program(PULLEY_WAST2JSON wast2json)
if(PULLEY_WAST2JSON)
  add_test(NAME wasm_spec_runner_selftest
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/wasm/spec/runner_selftest.sh)
  set_tests_properties(wasm_spec_runner_selftest PROPERTIES ENVIRONMENT
    "PULLEY_SPEC=$<TARGET_FILE:pulley-spec>;WAST2JSON=${PULLEY_WAST2JSON}")
endif()

# The translator and the instance layer, on modules written in the text
# format under tests/wasm (built by wat2wasm, with their names kept).
find_program(PULLEY_WAT2WASM wat2wasm REQUIRED)
file(GLOB pulley_wat_files ${CMAKE_CURRENT_LIST_DIR}/wasm/*.wat)
set(pulley_test_wasm_dir ${CMAKE_CURRENT_BINARY_DIR}/wasm)
file(MAKE_DIRECTORY ${pulley_test_wasm_dir})
set(pulley_test_wasm_files)
foreach(wat ${pulley_wat_files})
  get_filename_component(name ${wat} NAME_WE)
  set(out ${pulley_test_wasm_dir}/${name}.wasm)
  add_custom_command(OUTPUT ${out}
    COMMAND ${PULLEY_WAT2WASM} --debug-names ${wat} -o ${out}
    DEPENDS ${wat} VERBATIM)
  list(APPEND pulley_test_wasm_files ${out})
endforeach()
add_custom_target(test_wasm_modules ALL DEPENDS ${pulley_test_wasm_files})
foreach(t test_translate test_translate_exec test_translate_imm test_wasm_instance
          test_lazy_translation)
  pulley_unit_test(${t} SOURCES unit/${t}.c LIBS pulley_wasm_instance)
  target_compile_definitions(${t} PRIVATE PULLEY_TEST_WASM="${pulley_test_wasm_dir}")
  add_dependencies(${t} test_wasm_modules)
endforeach()

# pulley-run on WebAssembly, and the benchmark programs under it (their
# output must be their native builds', bench/expected), when pulley-run is
# built with Wasm support (it links pulley_wasm_run).
get_target_property(pulley_run_libs pulley-run LINK_LIBRARIES)
if(pulley_wasm_run IN_LIST pulley_run_libs)
  add_test(NAME wasm_pulley_run COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/wasm/pulley_run_wasm.sh)
  set_tests_properties(wasm_pulley_run PROPERTIES ENVIRONMENT
    "PULLEY_RUN=$<TARGET_FILE:pulley-run>;PULLEY_ASM=$<TARGET_FILE:pulley-asm>;PULLEY_TRACE=$<TARGET_FILE:pulley-trace>;PULLEY_COLLECT=$<TARGET_FILE:pulley-collect>;WASM=${pulley_test_wasm_dir};PEAK_RSS=$<TARGET_FILE:peak_rss>")
  # bench/ is configured after tests/: register at the end of configuration.
  # Not in sanitizer builds, where the suite would take CI half an hour.
  if(NOT PULLEY_SANITIZE)
    cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL pulley_bench_vm_tests)
  endif()
endif()
function(pulley_bench_vm_tests)
  if(NOT TARGET bench_wasm)
    return()
  endif()
  get_directory_property(programs DIRECTORY ${PROJECT_SOURCE_DIR}/bench
                         DEFINITION BENCH_PROGRAMS)
  foreach(name ${programs})
    set(out ${PROJECT_BINARY_DIR}/bench/${name}.vm.out)
    # Translated as called (the default) and all up front: the same output.
    add_test(NAME bench_vm_${name}
      COMMAND sh -c "\"$0\" \"$1\" > \"$2\" && cmp \"$2\" \"$3\" &&
                     \"$0\" --translate-all \"$1\" > \"$2\" && cmp \"$2\" \"$3\""
              $<TARGET_FILE:pulley-run> ${PROJECT_BINARY_DIR}/bench/${name}.wasm ${out}
              ${PROJECT_SOURCE_DIR}/bench/expected/${name}.txt)
    set_tests_properties(bench_vm_${name} PROPERTIES LABELS bench TIMEOUT 1200)
  endforeach()
endfunction()
