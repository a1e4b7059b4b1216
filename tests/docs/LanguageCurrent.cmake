# docs/language.md's reference tables (every op, attribute and tile data type) must be what
# `ttlplan ops --markdown` prints from the op registry, between its two marker lines:
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<dir> -P LanguageCurrent.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${TTLPLAN} ops --markdown RESULT_VARIABLE status OUTPUT_VARIABLE now
                ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ttlplan ops --markdown failed: ${err}")
endif()
file(READ ${SOURCE}/docs/language.md doc)
# The section runs from the first line of `now` (the begin marker) to its last (the end marker).
string(FIND "${now}" "\n" first_newline)
string(SUBSTRING "${now}" 0 ${first_newline} begin_marker)
string(FIND "${doc}" "${begin_marker}" begin)
string(FIND "${doc}" "<!-- end of the generated section -->" end)
if(begin EQUAL -1 OR end EQUAL -1)
  message(FATAL_ERROR "docs/language.md lacks the generated section's markers; paste the output "
                      "of `ttlplan ops --markdown` into it")
endif()
math(EXPR length "${end} + 38 - ${begin}") # 38: the end marker and its newline
string(SUBSTRING "${doc}" ${begin} ${length} section)
if(NOT section STREQUAL now)
  file(MAKE_DIRECTORY ${WORK})
  file(WRITE ${WORK}/language-section.md "${now}")
  message(FATAL_ERROR "docs/language.md's generated section is stale: replace it with the output "
                      "of `ttlplan ops --markdown` (written to ${WORK}/language-section.md)")
endif()
