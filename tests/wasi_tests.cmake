# WASI host tests (interp/wasi).  Included at the end of tests/CMakeLists.txt.
foreach(t test_wasi_core test_wasi_fd test_wasi_path)
  pulley_unit_test(${t} SOURCES unit/${t}.c LIBS pulley_wasi)
endforeach()
