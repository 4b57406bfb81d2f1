# Wasm front-end tests: the decoder and validator (interp/wasm).
# Included at the end of tests/CMakeLists.txt.

pulley_unit_test(test_wasm_decode SOURCES unit/test_wasm_decode.c LIBS pulley_wasm)
pulley_unit_test(test_wasm_validate SOURCES unit/test_wasm_validate.c LIBS pulley_wasm)
pulley_unit_test(test_wasm_hostile SOURCES unit/test_wasm_hostile.c LIBS pulley_wasm)

# The spec test suite, for the decoder and validator alone: every module
# must validate, every invalid or (binary) malformed one must be rejected.
set(PULLEY_SPEC_TESTS_DIR "" CACHE PATH
    "Directory of WebAssembly spec test scripts (.wast); empty: spec tests not registered")
add_executable(wasm_spec_validate ${CMAKE_CURRENT_LIST_DIR}/wasm/spec_validate.c)
target_link_libraries(wasm_spec_validate PRIVATE pulley_wasm)
if(PULLEY_SPEC_TESTS_DIR)
  find_program(PULLEY_WAST2JSON wast2json REQUIRED)
  add_test(NAME wasm_spec_validate
           COMMAND wasm_spec_validate --wast2json ${PULLEY_WAST2JSON} ${PULLEY_SPEC_TESTS_DIR})
endif()
