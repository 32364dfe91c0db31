// shaders/image.vert: one quad per pane, placed in window pixels (y down) by the view transform.
#version 330 core
layout(location = 0) in vec2 corner;       // (0,0) .. (1,1)
uniform vec4 image_rect;                   // x, y, width, height of the image in window pixels
uniform vec2 window_size;
out vec2 texcoord;
void main()
{
    vec2 pixel = image_rect.xy + corner * image_rect.zw;
    gl_Position = vec4(2.0 * pixel.x / window_size.x - 1.0, 1.0 - 2.0 * pixel.y / window_size.y, 0.0, 1.0);
    texcoord = corner;                     // row 0 of the textures is the image's top row
}
