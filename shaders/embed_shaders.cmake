# shaders/embed_shaders.cmake: turns each shader into a C string in one generated file, so that
# filterview runs from any working directory. Run as: cmake -DOUT=file.c -DSHADERS="a;b" -P this
set(code "/* generated from shaders/ by shaders/embed_shaders.cmake: do not edit */\n")
foreach(path ${SHADERS})
  get_filename_component(name ${path} NAME)
  string(REPLACE "." "_" symbol "fv_shader_${name}")
  file(READ ${path} text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  string(APPEND code "const char ${symbol}[] =\n    \"${text}\";\n")
endforeach()
file(WRITE ${OUT}.tmp "${code}")
file(RENAME ${OUT}.tmp ${OUT})
