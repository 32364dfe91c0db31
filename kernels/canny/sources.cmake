# kernels/canny/sources.cmake: the canny filter's files, included by the top CMakeLists.txt for its
# row of kernels/filters.def. FV_REF_SOURCES: plain C the CPU reference needs (no GPU);
# FV_KERNEL_SOURCES: its descriptor (plain C); FV_CUDA_SOURCES: its GPU variants (where CUDA is);
# FV_NPP_SOURCES: its NPP peer (where NPP is).
list(APPEND FV_REF_SOURCES ${CMAKE_CURRENT_LIST_DIR}/canny_ref.c)
list(APPEND FV_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/canny.c)
list(APPEND FV_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/canny.cu ${CMAKE_CURRENT_LIST_DIR}/canny_state.cu
                            ${CMAKE_CURRENT_LIST_DIR}/canny_hysteresis.cu
                            ${CMAKE_CURRENT_LIST_DIR}/canny_generic.cu)
list(APPEND FV_NPP_SOURCES ${CMAKE_CURRENT_LIST_DIR}/canny_npp.cu)
