// shaders/image.frag: composes panes A and B. mode 0: A alone; 1: wipe (A left of the divider,
// B right of it); 2: difference, max |A - B| over R, G, B amplified by `gain` as a heat map.
// A pane is a 2D texture, or (--interop buffer) the pixel buffer the kernel wrote, read in place
// as a buffer texture of RGBA8 texels, row after row: nearest texel when zoomed in, bilinear
// (4 fetches, like GL_LINEAR) when zoomed out.
#version 330 core
in vec2 texcoord;
uniform sampler2D pane_a;
uniform sampler2D pane_b;
uniform samplerBuffer pane_a_buffer;
uniform samplerBuffer pane_b_buffer;
uniform int a_in_buffer;                   // 1: pane A comes from pane_a_buffer
uniform int b_in_buffer;
uniform ivec2 image_size;                  // pixels, for the buffer textures
uniform int smooth_sampling;               // 1: bilinear (zoomed out), 0: nearest
uniform int mode;
uniform float divider_x;                   // wipe: window x of the divider (GL window coordinates)
uniform float gain;
out vec4 color;

vec3 heat(float t)                         // black -> purple -> orange -> yellow-white
{
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.6 * t, 1.4 * t * t, 0.65 * sin(3.1416 * t) + 0.9 * t * t * t * t), 0.0, 1.0);
}

vec4 buffer_texel(samplerBuffer pixels, ivec2 p)
{
    p = clamp(p, ivec2(0), image_size - 1);  // clamp to edge, as the 2D textures do
    return texelFetch(pixels, p.y * image_size.x + p.x);
}

vec4 sample_buffer(samplerBuffer pixels, vec2 tc)
{
    vec2 p = tc * vec2(image_size);
    if (smooth_sampling == 0) return buffer_texel(pixels, ivec2(floor(p)));
    vec2 q = p - 0.5;
    ivec2 i = ivec2(floor(q));
    vec2 f = q - floor(q);
    return mix(mix(buffer_texel(pixels, i), buffer_texel(pixels, i + ivec2(1, 0)), f.x),
               mix(buffer_texel(pixels, i + ivec2(0, 1)), buffer_texel(pixels, i + ivec2(1, 1)), f.x), f.y);
}

vec4 pane_a_color() { return a_in_buffer != 0 ? sample_buffer(pane_a_buffer, texcoord) : texture(pane_a, texcoord); }
vec4 pane_b_color() { return b_in_buffer != 0 ? sample_buffer(pane_b_buffer, texcoord) : texture(pane_b, texcoord); }

void main()
{
    vec4 a = pane_a_color();
    if (mode == 1) {
        color = vec4(gl_FragCoord.x < divider_x ? a.rgb : pane_b_color().rgb, 1.0);
    } else if (mode == 2) {
        vec3 d = abs(a.rgb - pane_b_color().rgb);
        color = vec4(heat(max(d.r, max(d.g, d.b)) * gain), 1.0);
    } else {
        color = vec4(a.rgb, 1.0);
    }
}
