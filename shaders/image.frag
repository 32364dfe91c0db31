// shaders/image.frag: composes panes A and B. mode 0: A alone; 1: wipe (A left of the divider,
// B right of it); 2: difference, max |A - B| over R, G, B amplified by `gain` as a heat map.
#version 330 core
in vec2 texcoord;
uniform sampler2D pane_a;
uniform sampler2D pane_b;
uniform int mode;
uniform float divider_x;                   // wipe: window x of the divider (GL window coordinates)
uniform float gain;
out vec4 color;

vec3 heat(float t)                         // black -> purple -> orange -> yellow-white
{
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.6 * t, 1.4 * t * t, 0.65 * sin(3.1416 * t) + 0.9 * t * t * t * t), 0.0, 1.0);
}

void main()
{
    vec4 a = texture(pane_a, texcoord);
    if (mode == 1) {
        color = vec4(gl_FragCoord.x < divider_x ? a.rgb : texture(pane_b, texcoord).rgb, 1.0);
    } else if (mode == 2) {
        vec3 d = abs(a.rgb - texture(pane_b, texcoord).rgb);
        color = vec4(heat(max(d.r, max(d.g, d.b)) * gain), 1.0);
    } else {
        color = vec4(a.rgb, 1.0);
    }
}
