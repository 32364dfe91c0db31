# cmake/library.cmake: libfilterview for other programs. `cmake --install` puts the shared and
# static libraries, include/libfilterview.h, a CMake package (find_package(filterview) gives
# filterview::filterview, the shared library, and filterview::filterview_static) and a pkg-config
# file (pkg-config --cflags --libs filterview); and the Python module `filterview` (python/),
# which also works from the build tree: PYTHONPATH=build/python.
include(CMakePackageConfigHelpers)
set(FV_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/filterview)

if(NOT CUDAToolkit_LIBRARY_DIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
  set_target_properties(filterview_shared PROPERTIES INSTALL_RPATH ${CUDAToolkit_LIBRARY_DIR})
endif()
install(TARGETS filterview_shared filterview_static EXPORT filterviewTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/libfilterview.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT filterviewTargets NAMESPACE filterview:: DESTINATION ${FV_CMAKE_DIR})
configure_package_config_file(cmake/filterviewConfig.cmake.in
  ${CMAKE_BINARY_DIR}/filterviewConfig.cmake INSTALL_DESTINATION ${FV_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/filterviewConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/filterviewConfig.cmake
              ${CMAKE_BINARY_DIR}/filterviewConfigVersion.cmake DESTINATION ${FV_CMAKE_DIR})
# the build tree is a package too: -Dfilterview_DIR=build
export(EXPORT filterviewTargets NAMESPACE filterview:: FILE ${CMAKE_BINARY_DIR}/filterviewTargets.cmake)

# pkg-config: the static library's own needs in Libs.private
set(FV_PC_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm")
if(FV_HAVE_NPP)
  set(FV_PC_PRIVATE "${FV_PC_PRIVATE} -lnppif -lnppidei -lnppc")
endif()
# relocatable: the prefix is found from where the file is (cmake --install --prefix DIR)
file(RELATIVE_PATH FV_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" FV_PC_UP "${FV_PC_UP}")
configure_file(cmake/filterview.pc.in ${CMAKE_BINARY_DIR}/filterview.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/filterview.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

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
install(CODE "
  set(fv_py_dir \"${FV_PYTHON_DIR}\")
  if(NOT fv_py_dir)
    set(fv_py_dir ${FV_PYTHON_VERSION_DIR})
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(fv_py_dir lib/python3/dist-packages)
    endif()
  endif()
  file(INSTALL ${FV_PYTHON_SOURCES} DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${fv_py_dir}/filterview\")
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/\${fv_py_dir}/filterview/_libpath.py\"
    \"# written by cmake --install: the libfilterview this copy of the module loads\\nLIBRARY = \\\"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libfilterview.so.${PROJECT_VERSION_MAJOR}\\\"\\n\")
")
