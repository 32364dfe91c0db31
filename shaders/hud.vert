// shaders/hud.vert: HUD text, panels and bars, given in window pixels (y down) with a colour.
#version 330 core
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 rgba;
uniform vec2 window_size;
out vec4 vertex_color;
void main()
{
    gl_Position = vec4(2.0 * position.x / window_size.x - 1.0, 1.0 - 2.0 * position.y / window_size.y, 0.0, 1.0);
    vertex_color = rgba;
}
