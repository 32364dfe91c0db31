// shaders/image.frag: composes panes A and B. mode 0: A alone; 1: wipe (A left of the divider,
// B right of it); 2: difference, max |A - B| over R, G, B amplified by `gain` as a heat map.
// A pane is a texture, or (shared CUDA-GL memory) a buffer texture read with texelFetch and
// filtered here: nearest when zoomed in, bilinear when zoomed out, as the textures are.
#version 330 core
in vec2 texcoord;
uniform sampler2D pane_a;
uniform sampler2D pane_b;
uniform samplerBuffer buffer_a;
uniform samplerBuffer buffer_b;
uniform int a_is_buffer;
uniform int b_is_buffer;
uniform ivec2 image_size;
uniform int row_texels;                    // buffer row pitch in pixels
uniform int nearest;
uniform int mode;
uniform float divider_x;                   // wipe: window x of the divider (GL window coordinates)
uniform float gain;
out vec4 color;

vec3 heat(float t)                         // black -> purple -> orange -> yellow-white
{
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.6 * t, 1.4 * t * t, 0.65 * sin(3.1416 * t) + 0.9 * t * t * t * t), 0.0, 1.0);
}

vec4 texel(samplerBuffer b, ivec2 p)
{
    p = clamp(p, ivec2(0), image_size - 1);
    return texelFetch(b, p.y * row_texels + p.x);
}

vec4 from_buffer(samplerBuffer b, vec2 uv)
{
    vec2 p = uv * vec2(image_size);
    if (nearest != 0) return texel(b, ivec2(floor(p)));
    p -= 0.5;
    ivec2 i = ivec2(floor(p));
    vec2 f = p - vec2(i);
    return mix(mix(texel(b, i), texel(b, i + ivec2(1, 0)), f.x),
               mix(texel(b, i + ivec2(0, 1)), texel(b, i + ivec2(1, 1)), f.x), f.y);
}

vec4 pane(int which, vec2 uv)
{
    if (which == 0) return a_is_buffer != 0 ? from_buffer(buffer_a, uv) : texture(pane_a, uv);
    return b_is_buffer != 0 ? from_buffer(buffer_b, uv) : texture(pane_b, uv);
}

void main()
{
    vec4 a = pane(0, texcoord);
    if (mode == 1) {
        color = vec4(gl_FragCoord.x < divider_x ? a.rgb : pane(1, texcoord).rgb, 1.0);
    } else if (mode == 2) {
        vec3 d = abs(a.rgb - pane(1, texcoord).rgb);
        color = vec4(heat(max(d.r, max(d.g, d.b)) * gain), 1.0);
    } else {
        color = vec4(a.rgb, 1.0);
    }
}
