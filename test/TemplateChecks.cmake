# Tests of a DSL template, through argus-gen: the verifier proves it, refuses it when mutated (a
# proof is only worth something if it can fail), and the interpreter runs it against the float64
# reference. Every target's templates are checked this way, so the three loops live here once.

# argus_template_proofs(<test prefix> <template file> <kernel name> VARIANTS <--set value>...
#                       [ARGS <verify flag>...] [TIMEOUT <seconds>])
# One test per variant, passing when argus-gen prints "<kernel name>: proved".
function(argus_template_proofs prefix template kernel)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "TIMEOUT" "VARIANTS;ARGS")
  foreach(variant ${arg_VARIANTS})
    string(REGEX REPLACE "[=,]" "_" name "${variant}")
    add_test(NAME ${prefix}_proved_${name}
             COMMAND $<TARGET_FILE:argus-gen> verify ${template} --set ${variant} ${arg_ARGS})
    set_tests_properties(${prefix}_proved_${name} PROPERTIES
      PASS_REGULAR_EXPRESSION "${kernel}: proved" FAIL_REGULAR_EXPRESSION "NOT proved")
    if(arg_TIMEOUT)
      set_tests_properties(${prefix}_proved_${name} PROPERTIES TIMEOUT ${arg_TIMEOUT})
    endif()
  endforeach()
endfunction()

# argus_template_mutants(<test prefix> <template file> MUTANTS "<name>|<sed expression>|<finding>[|<finding>...]"...
#                        [ARGS <verify flag>...])
# One test per mutant, passing when the verifier refuses the mutated file with one of the findings.
function(argus_template_mutants prefix template)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "MUTANTS;ARGS")
  foreach(mutant ${arg_MUTANTS})
    string(REPLACE "|" ";" fields "${mutant}")
    list(GET fields 0 name)
    list(GET fields 1 mutation)
    list(SUBLIST fields 2 -1 findings)
    string(REPLACE ";" "|" finding "${findings}")
    add_test(NAME ${prefix}_refuses_${name}
             COMMAND bash ${ARGUS_SOURCE_DIR}/test/verify_mutant.sh $<TARGET_FILE:argus-gen> ${template}
                     ${CMAKE_CURRENT_BINARY_DIR}/mutants ${prefix}_${name} ${mutation} "${finding}" ${arg_ARGS})
  endforeach()
endfunction()

# argus_template_runs(<test prefix> <template file> RUNS "<--set value>|<--shape value>|<--arg value>"...)
# One interpreter run per entry, passing on "PASS"; an empty --set or --arg field is left out.
function(argus_template_runs prefix template)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "RUNS")
  foreach(run ${arg_RUNS})
    string(REPLACE "|" ";" fields "${run}")
    list(GET fields 0 set)
    list(GET fields 1 shape)
    list(GET fields 2 args)
    set(flags --shape ${shape})
    if(set)
      list(APPEND flags --set ${set})
    endif()
    if(args)
      list(APPEND flags --arg ${args})
    endif()
    string(REGEX REPLACE "[=,.|_]+" "_" name "${set}_${shape}_${args}")
    string(REGEX REPLACE "^_|_$" "" name "${name}")
    add_test(NAME ${prefix}_interp_${name} COMMAND $<TARGET_FILE:argus-gen> run ${template} ${flags})
    set_tests_properties(${prefix}_interp_${name} PROPERTIES PASS_REGULAR_EXPRESSION "PASS")
  endforeach()
endfunction()
