# cmake/package.cmake: `cpack -G DEB` in the build folder makes four Debian packages, one per
# install component, split as Debian splits a program with a library:
#   filterview          (program)      the program, its man page and completion, docs, sample
#                                      photos, the user kernels of examples/kernels
#   libfilterview0      (library)      libfilterview.so.0.1.0 and its soname link
#   libfilterview-dev   (development)  the header, libfilterview.so, the static library, the CMake
#                                      package and filterview.pc
#   python3-filterview  (python)       the module, which loads libfilterview0's library
# Each is NAME_VERSION_ARCH.deb. The Depends on Debian libraries come from dpkg-shlibdeps; the
# CUDA libraries come from NVIDIA's toolkit rather than from a Debian package, so they cannot be a
# Depends: the descriptions say the toolkit is needed, and dpkg-shlibdeps is shown where they are
# (the run path, the private folder) so that it finds them and leaves them out.
set(CPACK_PACKAGE_NAME filterview)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The filterview authors")
set(CPACK_PACKAGE_CONTACT "The filterview authors <filterview@users.noreply.github.com>")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${CMAKE_SOURCE_DIR}/README.md)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE) # a package per component
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # filterview_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON) # maintainer scripts 0755, the rest 0644
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/cmake/debian/package_files.cmake) # copyright, man.1.gz

set(FV_LIBRARY_PACKAGE libfilterview${PROJECT_VERSION_MAJOR})
# `=`: the program, the headers and the module are made with the library of their own build
set(FV_LIBRARY_DEPENDS "${FV_LIBRARY_PACKAGE} (= ${PROJECT_VERSION})")
set(FV_PACKAGE_CUDA_LIBS "cuFFT and NVRTC")
if(FV_HAVE_NPP)
  set(FV_PACKAGE_CUDA_LIBS "cuFFT, NVRTC and NPP")
endif()
set(FV_PACKAGE_NEEDS "Requires the NVIDIA CUDA toolkit ${CUDAToolkit_VERSION_MAJOR} (its ${FV_PACKAGE_CUDA_LIBS} libraries, from
NVIDIA's packages); the GPU variants also need an NVIDIA GPU and driver.
Without a GPU the CPU reference still runs.")
# Each description's first line is its package's summary (CPACK_PACKAGE_DESCRIPTION_SUMMARY, left
# unset, would head all four); CPack formats the rest for the control file.

set(CPACK_DEBIAN_PROGRAM_PACKAGE_NAME filterview)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SUGGESTS "bash-completion")
if(TARGET filterview_shared)
  set(CPACK_DEBIAN_PROGRAM_PACKAGE_DEPENDS ${FV_LIBRARY_DEPENDS})
endif()
set(CPACK_DEBIAN_PROGRAM_DESCRIPTION "live GPU image filters you can compare, in a viewer or in batch
filterview runs an image filter on a photo (Gaussian, invert, box, median,
Canny, convolution) with several implementations of each: CUDA kernels from the
naive one to tuned ones, NVIDIA's NPP, and a plain-C reference. It shows two of
them side by side in an OpenGL window, writes filtered files, compares them
pixel by pixel and times them.

${FV_PACKAGE_NEEDS}")

set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME ${FV_LIBRARY_PACKAGE})
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON) # libfilterview0's shlibs: libfilterview 0 libfilterview0 (= 0.1.0)
# the loader's cache is rebuilt through dpkg's trigger, once for all the packages installed
set(CPACK_DEBIAN_LIBRARY_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/cmake/debian/library/triggers)
set(CPACK_DEBIAN_LIBRARY_DESCRIPTION "GPU image filters with a C API (shared library)
libfilterview runs filterview's image filters (Gaussian, invert, box, median,
Canny, convolution) from a program of your own: every implementation of each,
CUDA kernels, NVIDIA's NPP and the plain-C reference, on host or device images
of 8 or 16 bits or floats.

${FV_PACKAGE_NEEDS}")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libfilterview-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS ${FV_LIBRARY_DEPENDS})
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "GPU image filters with a C API (development files)
The header libfilterview.h, the shared library's link, the static library, a
CMake package (find_package(filterview)) and a pkg-config file (filterview),
to build programs with libfilterview.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-filterview)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${FV_LIBRARY_DEPENDS}, python3-numpy, python3:any")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "GPU image filters for NumPy, CuPy and PyTorch arrays
The Python module filterview: a function per filter of libfilterview
(filterview.gaussian, filterview.median, ...), contexts to run one filter on
many images, and filterview.dask to filter large images in chunks with Dask.")
# Python writes byte code beside the module when root imports it: compiled at install and
# removed before the files go, as Debian's own Python packages do (py3compile, py3clean)
configure_file(${CMAKE_SOURCE_DIR}/cmake/debian/python/postinst.in ${CMAKE_BINARY_DIR}/debian/python/postinst @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/debian/python/prerm.in ${CMAKE_BINARY_DIR}/debian/python/prerm @ONLY)
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian/python/postinst
                                              ${CMAKE_BINARY_DIR}/debian/python/prerm)
include(CPack)
