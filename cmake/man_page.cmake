# Writes a man page (roff) from the program's --help and each command's --help.
#   cmake -DPROGRAM=path/to/retryproof -DVERSION=0.2.0 -DOUTPUT=retryproof.1 -P man_page.cmake
# Commands are read from the "Subcommands:" section of --help, so a new one appears here
# without an edit.

function(help_of out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} --help failed: ${failed}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text a man page shows as it is: backslashes escaped, and no line read as a request.
function(roff_literal out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(top)
string(REGEX MATCH "\nSubcommands:\n.*" listing "${top}")
string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" commands "${listing}")
list(TRANSFORM commands STRIP)

roff_literal(top_text "${top}")
set(page ".TH RETRYPROOF 1 \"\" \"retryproof ${VERSION}\" \"User Commands\"
.SH NAME
retryproof \\- prove that code calling external APIs retries without duplicating side effects
.SH SYNOPSIS
.B retryproof
\\fICOMMAND\\fR [\\fIOPTIONS\\fR]
.br
.B retryproof
\\-\\-version
.SH DESCRIPTION
.nf
${top_text}.fi
")
foreach(command IN LISTS commands)
  help_of(text ${command})
  roff_literal(text "${text}")
  string(APPEND page ".SH \"RETRYPROOF ${command}\"\n.nf\n${text}.fi\n")
endforeach()
string(APPEND page ".SH \"EXIT STATUS\"
0: the job succeeded (run: every scenario met its expectations);
1: it found a problem (run: a scenario did not, or with \\-\\-fail\\-on harm one caused harm);
2: a usage error or an invalid catalog, and nothing ran.
.SH \"SEE ALSO\"
The README and docs/ under /usr/share/doc/retryproof (or the prefix it was installed to).
")
file(WRITE ${OUTPUT} "${page}")
