# The layering of doc/architecture.md, checked on the tree:
#
#   base <- fe <- mesh <- storage <- kernels <- operators <- multigrid <- dealii
#
# A file of module M (include/cellwise/M/... or source/M/...) may include
# <cellwise/T/...> only for T at or below M. Also refused: a module folder that
# is not in the list (a new module must be placed in the order, here and in
# doc/architecture.md), a cellwise header that does not exist (a stale path
# after a move), and a source/ folder without its include/ twin.
#
#   cmake -DROOT=<repository root> -P check_layering.cmake
#
# Prints every violation, one a line, and fails if there is any.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layering.cmake needs -DROOT=<repository root>")
endif()

set(modules base fe mesh storage kernels operators multigrid dealii)
set(violations)
string(REPLACE ";" " <- " order "${modules}")

foreach(tree IN ITEMS include/cellwise source)
  file(GLOB folders LIST_DIRECTORIES true RELATIVE ${ROOT}/${tree} ${ROOT}/${tree}/*)
  foreach(folder IN LISTS folders)
    if(IS_DIRECTORY ${ROOT}/${tree}/${folder})
      list(FIND modules ${folder} rank)
      if(rank LESS 0)
        list(APPEND violations "${tree}/${folder}/ is not a module of the layering (${order})")
      elseif(tree STREQUAL "source" AND NOT IS_DIRECTORY ${ROOT}/include/cellwise/${folder})
        list(APPEND violations "source/${folder}/ has no include/cellwise/${folder}/ to mirror")
      endif()
    endif()
  endforeach()
endforeach()

set(checked 0)
foreach(rank RANGE 7)
  list(GET modules ${rank} module)
  file(GLOB_RECURSE files ${ROOT}/include/cellwise/${module}/* ${ROOT}/source/${module}/*)
  list(FILTER files INCLUDE REGEX "\\.(h|cc|cu)$")
  list(SUBLIST modules 0 ${rank} below)
  list(APPEND below ${module})
  foreach(file IN LISTS files)
    math(EXPR checked "${checked} + 1")
    file(RELATIVE_PATH name ${ROOT} ${file})
    file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*<cellwise/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*<(cellwise/[^>]*)>.*$" "\\1" header "${line}")
      if(NOT EXISTS ${ROOT}/include/${header})
        list(APPEND violations "${name} includes <${header}>, which does not exist")
        continue()
      endif()
      string(REGEX REPLACE "^cellwise/([^/]*)/.*$" "\\1" target "${header}")
      list(FIND modules ${target} target_rank)
      if(target_rank GREATER rank)
        string(REPLACE ";" ", " allowed "${below}")
        list(APPEND violations "${name} includes <${header}>: ${module} may include only ${allowed}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  list(LENGTH violations n)
  foreach(v IN LISTS violations)
    message("layering: ${v}")
  endforeach()
  message(FATAL_ERROR "layering: ${n} violation(s) in ${checked} files (doc/architecture.md gives the order ${order})")
endif()
message("layering: ${checked} files of include/cellwise/ and source/ follow the order ${order}")
