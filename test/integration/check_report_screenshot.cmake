# check_report_screenshot.cmake -DCHROMIUM=... -DPNG_CHECK=... -DREPORT=... -DWORK_DIR=... -DCOLOURS="a;b"
# Headless Chromium renders report.html (no network: the page must need
# none) into a 1400 x 1600 screenshot; argus_png_check confirms it drew text
# and the roofline's points in each series' colour.
if(NOT CHROMIUM)
  message(FATAL_ERROR "chromium not found: scripts/setup.sh installs it for the tests")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
                        --user-data-dir=${WORK_DIR}/profile --window-size=1400,1600
                        --screenshot=${WORK_DIR}/report.png file://${REPORT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/report.png)
  message(FATAL_ERROR "chromium could not take the screenshot (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${PNG_CHECK} ${WORK_DIR}/report.png 1400 1600 ${COLOURS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the screenshot of ${REPORT} does not show the report")
endif()
