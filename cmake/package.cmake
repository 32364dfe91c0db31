# cmake/package.cmake: `cpack -G DEB` in the build folder makes filterview_VERSION_ARCH.deb from the
# install rules. Its Depends come from dpkg-shlibdeps (the Debian libraries the program links);
# the CUDA libraries come from NVIDIA's toolkit rather than from a Debian package, so they cannot be
# a Depends: the description says the toolkit is needed, and dpkg-shlibdeps is shown where they are
# (the run path, the private folder) so that it finds them and leaves them out.
set(CPACK_PACKAGE_NAME filterview)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The filterview authors")
set(CPACK_PACKAGE_CONTACT "The filterview authors <filterview@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "live GPU image filters you can compare, in a viewer or in batch")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${CMAKE_SOURCE_DIR}/README.md)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # filterview_0.1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(FV_PACKAGE_CUDA_LIBS "cuFFT and NVRTC")
if(FV_HAVE_NPP)
  set(FV_PACKAGE_CUDA_LIBS "cuFFT, NVRTC and NPP")
endif()
# the long description (CPack puts the summary above it and formats it for the control file)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "filterview runs an image filter on a photo (Gaussian, invert, box, median,
Canny, convolution) with several implementations of each: CUDA kernels from the
naive one to tuned ones, NVIDIA's NPP, and a plain-C reference. It shows two of
them side by side in an OpenGL window, writes filtered files, compares them
pixel by pixel and times them.

Requires the NVIDIA CUDA toolkit ${CUDAToolkit_VERSION_MAJOR} (its ${FV_PACKAGE_CUDA_LIBS} libraries, from
NVIDIA's packages); the GPU variants also need an NVIDIA GPU and driver.
Without a GPU the CPU reference (-v cpu) still runs.")
include(CPack)
