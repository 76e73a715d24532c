# check_exports.cmake -DLIBRARY=<.so> -DHEADER=<argus_kernels.h>
#
# A kernel library is linked into serving engines next to other libraries:
# it must export the C ABI and nothing else (no C++ runtime symbols that could
# clash or interpose), and its SONAME must be libargus*.so.<ABI version>.
# Checks, with `nm -D --defined-only` and `objdump -p`:
#   - every exported symbol starts with argus_;
#   - every function declared ARGUS_API in the header, and each of the 10
#     functions of the v1 contract, is exported;
#   - the SONAME ends in .so.<ARGUS_ABI_VERSION>.
cmake_minimum_required(VERSION 3.20)
foreach(var LIBRARY HEADER)
  if(NOT ${var})
    message(FATAL_ERROR "check_exports.cmake: expected -D${var}=...")
  endif()
endforeach()

execute_process(COMMAND nm -D --defined-only ${LIBRARY}
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE nm_rc ERROR_VARIABLE nm_err)
if(NOT nm_rc EQUAL 0)
  message(FATAL_ERROR "nm -D --defined-only ${LIBRARY} failed: ${nm_err}")
endif()
string(REPLACE "\n" ";" lines "${nm_out}")
set(exported)
set(foreign)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* +[A-Za-z] +([^ @]+)")
    set(sym ${CMAKE_MATCH_1})
    list(APPEND exported ${sym})
    if(NOT sym MATCHES "^argus_")
      list(APPEND foreign ${sym})
    endif()
  endif()
endforeach()
if(foreign)
  list(LENGTH foreign n)
  message(FATAL_ERROR "${LIBRARY} exports ${n} symbol(s) outside the C ABI "
                      "(expected only argus_*): ${foreign}")
endif()

file(READ ${HEADER} header)
string(REGEX MATCHALL "ARGUS_API[^;(]*[ *](argus_[a-z0-9_]+)\\(" decls "${header}")
set(missing)
set(declared 0)
foreach(decl IN LISTS decls)
  string(REGEX MATCH "(argus_[a-z0-9_]+)\\($" name "${decl}")
  set(name ${CMAKE_MATCH_1})
  math(EXPR declared "${declared} + 1")
  if(NOT name IN_LIST exported)
    list(APPEND missing ${name})
  endif()
endforeach()
# The v1 contract (DESIGN.md), whatever the header says.
foreach(name argus_abi_version argus_version argus_manifest_json argus_last_error
        argus_status_string argus_gemm argus_attention_prefill argus_attention_decode
        argus_moe_workspace_size argus_moe)
  if(NOT name IN_LIST exported)
    list(APPEND missing ${name})
  endif()
endforeach()
if(declared LESS 10)
  message(FATAL_ERROR "found only ${declared} ARGUS_API functions in ${HEADER}; "
                      "expected at least the 10 of the v1 ABI")
endif()
if(missing)
  message(FATAL_ERROR "${LIBRARY} does not export ${missing}, declared in ${HEADER}")
endif()

string(REGEX MATCH "#define ARGUS_ABI_VERSION ([0-9]+)" _ "${header}")
set(abi ${CMAKE_MATCH_1})
execute_process(COMMAND objdump -p ${LIBRARY} OUTPUT_VARIABLE dump RESULT_VARIABLE rc)
string(REGEX MATCH "SONAME +([^\n]+)" _ "${dump}")
set(soname "${CMAKE_MATCH_1}")
if(NOT soname MATCHES "^libargus.*\\.so\\.${abi}$")
  message(FATAL_ERROR "SONAME of ${LIBRARY} is '${soname}'; expected libargus*.so.${abi}")
endif()
list(LENGTH exported n)
message(STATUS "${LIBRARY}: ${n} exported symbols, all argus_*; ${declared} ABI functions "
               "present; SONAME ${soname}")
