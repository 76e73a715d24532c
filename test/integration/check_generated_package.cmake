# check_generated_package.cmake -DOUT=<argus-gen build dir> -DSOURCE_DIR=<tree> -DWORK_DIR=<scratch>
# The package argus-gen lays out is usable as is: pkg-config validates it and
# a downstream CMake project finds it with find_package(ArgusKernels 1),
# builds the C99 client against it and passes.
cmake_minimum_required(VERSION 3.20)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "`${cmd}` failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(ENV{PKG_CONFIG_PATH} ${OUT}/lib/pkgconfig)
run(pkg-config --validate argus_kernels)
run(pkg-config --modversion argus_kernels)
if(NOT run_output MATCHES "^1\\.0\\.0")
  message(FATAL_ERROR "pkg-config --modversion: expected 1.0.0, got ${run_output}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/client/package_consumer -B ${WORK_DIR}
    -DCMAKE_PREFIX_PATH=${OUT} -DCLIENT_SOURCE=${SOURCE_DIR}/test/client/gemm_client.c)
run(${CMAKE_COMMAND} --build ${WORK_DIR})
run(${WORK_DIR}/gemm_client_pkg 3x256x256:bf16 5x33x65:f32)
if(NOT run_output MATCHES "PASS: ")
  message(FATAL_ERROR "the client built from the package failed:\n${run_output}")
endif()
message(STATUS "package in ${OUT}: pkg-config and find_package(ArgusKernels 1) work")
