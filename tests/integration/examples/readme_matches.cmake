# SPDX-License-Identifier: Apache-2.0
# The README's C++ example must be examples/quickstart.cc, character for character,
# after the file's licence line (which the README leaves out).
file(READ ${README} readme)
file(READ ${SOURCE} source)
string(REGEX REPLACE "^// SPDX-License-Identifier: [^\n]*\n" "" source "${source}")
string(FIND "${readme}" "${source}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain examples/quickstart.cc verbatim; update one of them")
endif()
