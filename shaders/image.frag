// shaders/image.frag: composes panes A and B. mode 0: A alone; 1: wipe (A left of the divider,
// B right of it); 2: difference, max |A - B| over R, G, B amplified by `gain` as a heat map.
// A pane is a 2D texture, or (--interop buffer) the pixel buffer the kernel wrote, read in place
// as a buffer texture of RGBA8, RGBA16 or RGBA32F texels (the image's type), row after row:
// nearest texel when zoomed in, bilinear (4 fetches, like GL_LINEAR) when zoomed out.
// What is sampled goes through the display transform (value * display_scale + display_bias:
// exposure and offset over the image's range; 1 and 0 for 8-bit images) and, where one is
// picked, a false-colour map of its luma (viridis or turbo, polynomial fits of matplotlib's and
// Google's tables; viewer/window/hud_layout.c draws the same for the colour key).
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
uniform float display_scale;               // shown = sampled * display_scale + display_bias
uniform float display_bias;
uniform int colormap;                      // 0: none, 1: viridis, 2: turbo
out vec4 color;

vec3 viridis(float t)
{
    const vec3 c0 = vec3(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
    const vec3 c1 = vec3(0.1050930431085774, 1.404613529898575, 1.384590162594685);
    const vec3 c2 = vec3(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
    const vec3 c3 = vec3(-4.634230498983486, -5.799100973351585, -19.33244095627987);
    const vec3 c4 = vec3(6.228269936347081, 14.17993336680509, 56.69055260068105);
    const vec3 c5 = vec3(4.776384997670288, -13.74514537774601, -65.35303263337234);
    const vec3 c6 = vec3(-5.435455855934631, 4.645852612178535, 26.3124352495832);
    return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

vec3 turbo(float t)
{
    const vec4 r4 = vec4(0.13572138, 4.61539260, -42.66032258, 132.13108234);
    const vec4 g4 = vec4(0.09140261, 2.19418839, 4.84296658, -14.18503333);
    const vec4 b4 = vec4(0.10667330, 12.64194608, -60.58204836, 110.36276771);
    const vec2 r2 = vec2(-152.94239396, 59.28637943);
    const vec2 g2 = vec2(4.27729857, 2.82956604);
    const vec2 b2 = vec2(-89.90310912, 27.34824973);
    vec4 v4 = vec4(1.0, t, t * t, t * t * t);
    vec2 v2 = v4.zw * v4.z;
    return vec3(dot(v4, r4) + dot(v2, r2), dot(v4, g4) + dot(v2, g2), dot(v4, b4) + dot(v2, b2));
}

vec3 shown(vec3 v)
{
    v = v * display_scale + display_bias;
    if (colormap == 0) return v;
    float t = clamp(dot(v, vec3(0.299, 0.587, 0.114)), 0.0, 1.0);
    return clamp(colormap == 1 ? viridis(t) : turbo(t), 0.0, 1.0);
}

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
        color = vec4(shown(gl_FragCoord.x < divider_x ? a.rgb : pane_b_color().rgb), 1.0);
    } else if (mode == 2) {                // the error on the display's scale, times the gain
        vec3 d = abs(a.rgb - pane_b_color().rgb);
        color = vec4(heat(max(d.r, max(d.g, d.b)) * abs(display_scale) * gain), 1.0);
    } else {
        color = vec4(shown(a.rgb), 1.0);
    }
}
