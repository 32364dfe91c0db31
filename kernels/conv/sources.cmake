# kernels/conv/sources.cmake: the conv filter's files, included by the top CMakeLists.txt for its
# row of kernels/filters.def. FV_REF_SOURCES: plain C the CPU reference needs (no GPU);
# FV_KERNEL_SOURCES: its descriptor (plain C); FV_CUDA_SOURCES: its GPU variants (where CUDA is);
# FV_NPP_SOURCES: its NPP peer (where NPP is).
list(APPEND FV_REF_SOURCES ${CMAKE_CURRENT_LIST_DIR}/conv_kernels.c ${CMAKE_CURRENT_LIST_DIR}/conv_ref.c)
list(APPEND FV_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/conv.c)
list(APPEND FV_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/conv.cu ${CMAKE_CURRENT_LIST_DIR}/conv_fft.cu)
list(APPEND FV_NPP_SOURCES ${CMAKE_CURRENT_LIST_DIR}/conv_npp.c)
