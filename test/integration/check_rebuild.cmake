# check_rebuild.cmake -DARGUS_GEN=... -DCATALOG=... -DOUT=... -DCACHE=... -DHOME=...
# A second build of an unchanged catalog and tuning database must measure
# nothing, compile nothing (every object from the cache) and produce a
# byte-identical library.
set(lib ${OUT}/lib/libargus_kernels.so.1.0.0)
file(SHA256 ${lib} before)
execute_process(COMMAND ${ARGUS_GEN} build --catalog ${CATALOG} --out ${OUT} --cache ${CACHE} --home ${HOME}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rebuild failed: ${out}${err}")
endif()
if(NOT out MATCHES "\\(0 new:")
  message(FATAL_ERROR "rebuild measured candidates again:\n${out}")
endif()
if(NOT out MATCHES " 0 objects compiled")
  message(FATAL_ERROR "rebuild recompiled objects:\n${out}")
endif()
file(SHA256 ${lib} after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "rebuild changed the library bytes (${before} -> ${after})")
endif()
message(STATUS "rebuild: no candidate measured, all objects from cache, library identical")
