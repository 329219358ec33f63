# Writes numasim's man pages and shell completions into OUT from the numasim binary NUMASIM,
# which generates both from its own command-line definition (`numasim man`, `numasim
# completion`), so that neither can drift from --help:
#   OUT/man/*.1          the pages as roff (the tests render these with groff)
#   OUT/man1/*.1.gz      the same compressed as Debian installs man pages (gzip -9n: no
#                        timestamp, so that the package is reproducible)
#   OUT/completion/numasim, OUT/completion/_numasim   bash and zsh
# Any failure stops the build with the generator's own message.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "numasim: generating the man pages and completions: `${cmd}` failed "
      "(${rc}): ${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${OUT}/man" "${OUT}/man1" "${OUT}/completion")
file(MAKE_DIRECTORY "${OUT}/man1" "${OUT}/completion")
run("${NUMASIM}" man --out-dir "${OUT}/man")
file(GLOB pages "${OUT}/man/*.1")
if(NOT pages)
  message(FATAL_ERROR "numasim: `numasim man --out-dir ${OUT}/man` wrote no pages")
endif()
foreach(page IN LISTS pages)
  get_filename_component(name "${page}" NAME)
  execute_process(COMMAND "${GZIP}" -9n -c "${page}" OUTPUT_FILE "${OUT}/man1/${name}.gz"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "numasim: gzip ${page} failed (${rc})")
  endif()
endforeach()
execute_process(COMMAND "${NUMASIM}" completion bash OUTPUT_FILE "${OUT}/completion/numasim"
  RESULT_VARIABLE rc_bash)
execute_process(COMMAND "${NUMASIM}" completion zsh OUTPUT_FILE "${OUT}/completion/_numasim"
  RESULT_VARIABLE rc_zsh)
if(NOT rc_bash EQUAL 0 OR NOT rc_zsh EQUAL 0)
  message(FATAL_ERROR "numasim: `numasim completion bash|zsh` failed (${rc_bash}, ${rc_zsh})")
endif()
