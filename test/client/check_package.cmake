# check_package.cmake -DLIBRARY=<libargus_kernels.so.X.Y.Z> -DSOURCE_DIR=<repo>
#                     -DWORK_DIR=<scratch dir> -DVERSION=X.Y.Z
#
# Stages an install prefix the way a generated package lays it out (header,
# library with its .so.X / .so links, pkg-config file and CMake package from
# dist/templates), then checks it as a user would:
#   - pkg-config validates argus_kernels.pc and reports the version and flags;
#   - a separate CMake project does find_package(ArgusKernels 1), builds
#     gemm_client.c against ArgusKernels::argus_kernels, and runs it;
#   - find_package(ArgusKernels 2) (another ABI) is refused.
cmake_minimum_required(VERSION 3.20)
foreach(var LIBRARY SOURCE_DIR WORK_DIR VERSION)
  if(NOT ${var})
    message(FATAL_ERROR "check_package.cmake: expected -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "`${cmd}` failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

string(REGEX MATCH "^([0-9]+)\\." _ "${VERSION}")
set(ARGUS_ABI_VERSION ${CMAKE_MATCH_1})
set(ARGUS_VERSION ${VERSION})
set(ARGUS_MODEL "test-model")
set(ARGUS_TARGET "cpu-test")

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${prefix}/include ${prefix}/lib/pkgconfig ${prefix}/lib/cmake/ArgusKernels
     ${prefix}/share/argus_kernels)
file(COPY ${SOURCE_DIR}/dist/include/argus_kernels.h DESTINATION ${prefix}/include)
file(COPY_FILE ${LIBRARY} ${prefix}/lib/libargus_kernels.so.${VERSION})
file(CREATE_LINK libargus_kernels.so.${VERSION} ${prefix}/lib/libargus_kernels.so.${ARGUS_ABI_VERSION}
     SYMBOLIC)
file(CREATE_LINK libargus_kernels.so.${ARGUS_ABI_VERSION} ${prefix}/lib/libargus_kernels.so SYMBOLIC)
file(WRITE ${prefix}/share/argus_kernels/manifest.json "{}\n")
set(templates ${SOURCE_DIR}/dist/templates)
configure_file(${templates}/argus_kernels.pc.in ${prefix}/lib/pkgconfig/argus_kernels.pc @ONLY)
configure_file(${templates}/ArgusKernelsConfig.cmake.in
               ${prefix}/lib/cmake/ArgusKernels/ArgusKernelsConfig.cmake @ONLY)
configure_file(${templates}/ArgusKernelsConfigVersion.cmake.in
               ${prefix}/lib/cmake/ArgusKernels/ArgusKernelsConfigVersion.cmake @ONLY)

# pkg-config
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
  run(${PKG_CONFIG} --validate argus_kernels)
  run(${PKG_CONFIG} --modversion argus_kernels)
  string(STRIP "${run_output}" got)
  if(NOT got STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion argus_kernels: expected ${VERSION}, got '${got}'")
  endif()
  run(${PKG_CONFIG} --cflags --libs argus_kernels)
  if(NOT run_output MATCHES "-largus_kernels" OR NOT run_output MATCHES "-I")
    message(FATAL_ERROR "pkg-config flags lack -I or -largus_kernels: ${run_output}")
  endif()
else()
  message(STATUS "pkg-config not found: skipping the .pc checks")
endif()

# CMake package: a downstream build.
set(consumer ${SOURCE_DIR}/test/client/package_consumer)
run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${prefix}
    -DCLIENT_SOURCE=${SOURCE_DIR}/test/client/gemm_client.c)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/gemm_client_pkg 5x64x32:f32 3x17x9:bf16)
if(NOT run_output MATCHES "PASS: ")
  message(FATAL_ERROR "gemm_client built from the package did not pass:\n${run_output}")
endif()

# Another ABI must not be accepted.
file(WRITE ${WORK_DIR}/abi2/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.20)\nproject(abi2 NONE)\nfind_package(ArgusKernels 2 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/abi2 -B ${WORK_DIR}/abi2/build
                -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(ArgusKernels 2) accepted a version ${VERSION} package")
endif()
message(STATUS "package at ${prefix}: pkg-config and find_package(ArgusKernels 1) work")
