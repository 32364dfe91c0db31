# cmake/library.cmake: libfilterview for other programs. `cmake --install` puts the shared and
# static libraries, include/libfilterview.h, a CMake package (find_package(filterview) gives
# filterview::filterview, the shared library, and filterview::filterview_static) and a pkg-config
# file (pkg-config --cflags --libs filterview); and the Python module `filterview` (python/),
# which also works from the build tree: PYTHONPATH=build/python. Components (the Debian packages
# of cmake/package.cmake): `library` the shared library's file and soname link (libfilterview0),
# `development` the rest for building against it (libfilterview-dev), `python` the module
# (python3-filterview).
include(CMakePackageConfigHelpers)
set(FV_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/filterview)

if(FV_CUDA AND NOT CUDAToolkit_LIBRARY_DIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
  set_target_properties(filterview_shared PROPERTIES INSTALL_RPATH ${CUDAToolkit_LIBRARY_DIR})
endif()
install(TARGETS filterview_shared filterview_static EXPORT filterviewTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT development
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
# The loader finds a library in /usr or /usr/local once its cache knows it: ldconfig, run here for
# `sudo cmake --install` (dpkg's trigger does it for the package, hence not under DESTDIR). Another
# prefix is not searched: the module finds the library by its path (_libpath.py), a program by
# its run path; the line says so.
install(CODE "
  set(fv_libdir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
  if(NOT \"\$ENV{DESTDIR}\" STREQUAL \"\")
  elseif(CMAKE_INSTALL_PREFIX MATCHES \"^/usr(/local)?/?$\")
    execute_process(COMMAND ldconfig RESULT_VARIABLE fv_failed OUTPUT_QUIET ERROR_QUIET)
    if(fv_failed)
      message(STATUS \"libfilterview: run `sudo ldconfig` for the loader to find it in \${fv_libdir}\")
    endif()
  else()
    message(STATUS \"libfilterview: \${fv_libdir} is not on the loader's path: link programs with \"
                   \"-Wl,-rpath,\${fv_libdir}, or run them with LD_LIBRARY_PATH=\${fv_libdir}\")
  endif()
" COMPONENT library)
install(FILES include/libfilterview.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
install(EXPORT filterviewTargets NAMESPACE filterview:: DESTINATION ${FV_CMAKE_DIR}
        COMPONENT development)
configure_package_config_file(cmake/filterviewConfig.cmake.in
  ${CMAKE_BINARY_DIR}/filterviewConfig.cmake INSTALL_DESTINATION ${FV_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/filterviewConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion) # as the soname: the major version
install(FILES ${CMAKE_BINARY_DIR}/filterviewConfig.cmake
              ${CMAKE_BINARY_DIR}/filterviewConfigVersion.cmake DESTINATION ${FV_CMAKE_DIR}
        COMPONENT development)
# the build tree is a package too: -Dfilterview_DIR=build
export(EXPORT filterviewTargets NAMESPACE filterview:: FILE ${CMAKE_BINARY_DIR}/filterviewTargets.cmake)

# pkg-config: the static library's own needs in Libs.private
set(FV_PC_PRIVATE "-lturbojpeg -ljpeg -lspng -ldeflate -ltiff -lz -lpthread -ldl -lrt -lm")
if(FV_CUDA)
  set(FV_PC_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static ${FV_PC_PRIVATE}")
endif()
if(FV_HAVE_NPP)
  set(FV_PC_PRIVATE "${FV_PC_PRIVATE} -lnppif -lnppidei -lnppc")
endif()
if(FV_HAVE_NVJPEG)
  set(FV_PC_PRIVATE "${FV_PC_PRIVATE} -lnvjpeg")
endif()
# relocatable: the prefix is found from where the file is (cmake --install --prefix DIR)
file(RELATIVE_PATH FV_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" FV_PC_UP "${FV_PC_UP}")
configure_file(cmake/filterview.pc.in ${CMAKE_BINARY_DIR}/filterview.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/filterview.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT development)

# ---- the Python module: python/filterview, copied into build/python with the library's path ----
# Debian's python3 by default: its packages (python3-numpy, ...) are what the module uses; another
# interpreter (a virtual environment on PATH) may lack them. -DPython3_EXECUTABLE=... to choose.
if(EXISTS /usr/bin/python3 AND NOT DEFINED Python3_EXECUTABLE)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "the Python the module is installed for and tested with")
endif()
find_package(Python3 COMPONENTS Interpreter)
# --dask runs the Python the module is installed for (FILTERVIEW_PYTHON: another)
if(Python3_FOUND)
  target_compile_definitions(filterview PRIVATE FV_PYTHON="${Python3_EXECUTABLE}")
  # the module needs NumPy: where this Python lacks it and the python3 on PATH has it (a machine
  # whose own Python is elsewhere), say which to choose rather than skip its tests in silence
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy" RESULT_VARIABLE fv_no_numpy
                  OUTPUT_QUIET ERROR_QUIET)
  if(fv_no_numpy)
    find_program(FV_PATH_PYTHON python3 NO_CACHE)
    set(fv_hint "")
    if(FV_PATH_PYTHON AND NOT FV_PATH_PYTHON STREQUAL Python3_EXECUTABLE)
      execute_process(COMMAND ${FV_PATH_PYTHON} -c "import numpy" RESULT_VARIABLE fv_path_no_numpy
                      OUTPUT_QUIET ERROR_QUIET)
      if(NOT fv_path_no_numpy)
        set(fv_hint "; ${FV_PATH_PYTHON} has it: -DPython3_EXECUTABLE=${FV_PATH_PYTHON}")
      endif()
    endif()
    message(STATUS "Python module: ${Python3_EXECUTABLE} has no NumPy (Debian: python3-numpy), "
                   "so its tests will skip${fv_hint}")
  endif()
endif()
file(GLOB FV_PYTHON_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/filterview/*.py)
set(FV_PYTHON_BUILD ${CMAKE_BINARY_DIR}/python/filterview)
set(FV_PYTHON_COPIES "")
foreach(src ${FV_PYTHON_SOURCES})
  get_filename_component(name ${src} NAME)
  add_custom_command(OUTPUT ${FV_PYTHON_BUILD}/${name}
                     COMMAND ${CMAKE_COMMAND} -E copy ${src} ${FV_PYTHON_BUILD}/${name}
                     DEPENDS ${src} VERBATIM)
  list(APPEND FV_PYTHON_COPIES ${FV_PYTHON_BUILD}/${name})
endforeach()
file(GENERATE OUTPUT ${FV_PYTHON_BUILD}/_libpath.py CONTENT
     "# written by CMake: the libfilterview this copy of the module loads\nLIBRARY = \"$<TARGET_FILE:filterview_shared>\"\n")
add_custom_target(filterview_python ALL DEPENDS ${FV_PYTHON_COPIES} filterview_shared)
# Debian's Python looks in /usr/lib/python3/dist-packages for prefix /usr (the Debian package)
# and in PREFIX/lib/python3.X/dist-packages for /usr/local: decided when installing, since the
# package's prefix is not the build's. FV_PYTHON_DIR (relative to the prefix) overrides both.
set(FV_PYTHON_VERSION_DIR lib/python3/dist-packages)
if(Python3_FOUND)
  set(FV_PYTHON_VERSION_DIR lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages)
endif()
set(FV_PYTHON_DIR "" CACHE STRING "where cmake --install puts the Python module (default: see above)")
# _libpath.py is written for the prefix being installed to, then installed like the others, so
# that install_manifest.txt lists it (cmake/uninstall.cmake.in removes the module whole); the copy
# in the build tree goes, so that `sudo cmake --install` leaves no file there a user cannot replace.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/python-install)
install(CODE "
  set(fv_py_dir \"${FV_PYTHON_DIR}\")
  if(NOT fv_py_dir)
    set(fv_py_dir ${FV_PYTHON_VERSION_DIR})
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(fv_py_dir lib/python3/dist-packages)
    endif()
  endif()
  file(INSTALL ${FV_PYTHON_SOURCES} DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${fv_py_dir}/filterview\")
  file(WRITE \"${CMAKE_BINARY_DIR}/python-install/_libpath.py\"
    \"# written by cmake --install: the libfilterview this copy of the module loads\\nLIBRARY = \\\"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libfilterview.so.${PROJECT_VERSION_MAJOR}\\\"\\n\")
  file(INSTALL \"${CMAKE_BINARY_DIR}/python-install/_libpath.py\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${fv_py_dir}/filterview\")
  file(REMOVE \"${CMAKE_BINARY_DIR}/python-install/_libpath.py\")
" COMPONENT python)
