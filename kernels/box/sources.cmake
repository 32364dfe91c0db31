# kernels/box/sources.cmake: the box filter's files, included by the top CMakeLists.txt for its
# row of kernels/filters.def. FV_REF_SOURCES: plain C the CPU reference needs (no GPU);
# FV_KERNEL_SOURCES: its descriptor (plain C); FV_CUDA_SOURCES: its GPU variants (where CUDA is);
# FV_NPP_SOURCES: its NPP peer (where NPP is).
list(APPEND FV_REF_SOURCES ${CMAKE_CURRENT_LIST_DIR}/box_ref.c)
list(APPEND FV_KERNEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/box.c)
list(APPEND FV_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/box.cu ${CMAKE_CURRENT_LIST_DIR}/box_fast.cu
                            ${CMAKE_CURRENT_LIST_DIR}/box_generic.cu
                            ${CMAKE_CURRENT_LIST_DIR}/box_fast_plan.c)
list(APPEND FV_NPP_SOURCES ${CMAKE_CURRENT_LIST_DIR}/box_npp.c)
