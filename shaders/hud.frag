// shaders/hud.frag: flat colour with alpha (panels are translucent).
#version 330 core
in vec4 vertex_color;
out vec4 color;
void main() { color = vertex_color; }
