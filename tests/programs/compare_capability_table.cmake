# doc/capabilities.md holds the output of `cellwise-poisson --capabilities`
# between the lines <!-- capabilities: begin --> and <!-- capabilities: end -->;
# fails, with both texts, where they differ. scripts/capability-table.sh
# writes the block anew.
execute_process(COMMAND ${PROGRAM} --capabilities RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --capabilities exited ${rc}: ${err}")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "<!-- capabilities: begin -->\n" begin)
string(FIND "${doc}" "<!-- capabilities: end -->" end)
if(begin EQUAL -1 OR end EQUAL -1)
  message(FATAL_ERROR "${DOC} has no block between <!-- capabilities: begin --> and <!-- capabilities: end -->")
endif()
math(EXPR begin "${begin} + 29")
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${doc}" ${begin} ${length} documented)
if(NOT documented STREQUAL table)
  message(FATAL_ERROR "the table of ${DOC} is not what `cellwise-poisson --capabilities` prints "
                      "(write it anew with scripts/capability-table.sh)\n--- the program:\n${table}\n--- the doc:\n${documented}")
endif()
message(STATUS "doc/capabilities.md has the program's table")
