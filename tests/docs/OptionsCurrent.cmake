# docs/options.md must be what `ttlplan options --markdown` prints (the option tables are the one
# definition of every option; the page is generated from them):
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -P OptionsCurrent.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${TTLPLAN} options --markdown RESULT_VARIABLE status OUTPUT_VARIABLE now
                ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ttlplan options --markdown failed: ${err}")
endif()
file(READ ${SOURCE}/docs/options.md doc)
if(NOT doc STREQUAL now)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/options.md.new "${now}")
  message(FATAL_ERROR "docs/options.md is stale: regenerate it with\n"
                      "  ttlplan options --markdown > docs/options.md\n"
                      "(the current text is in ${CMAKE_CURRENT_BINARY_DIR}/options.md.new)")
endif()
