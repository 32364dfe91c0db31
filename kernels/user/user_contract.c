/* ------------------------------------------------------------------------------------------------
 * kernels/user/user_contract.c: the contract header "filterview.h" a user kernel includes, made at
 * run time from the registry, and the host side of its parameter struct.
 *
 * One field list serves both: fields_of() lists a filter's parameters in table order (REAL ->
 * float, INT and CHOICE -> int, IMAGE -> int "given") followed by the derived data its built-in
 * kernels get (the Gaussian's integer taps); the header declares the struct from that list with
 * a static_assert on its size (every field is 4 bytes, so the size pins the layout), and
 * fv_user_params_pack writes the same bytes: a change of a parameter table changes both. What a
 * filter adds (its rounding rules, those derived fields and their fill, constants) comes from its
 * descriptor's user_contract: this file reads the registry and names no filter.
 * Checked by tests/cpu/test_user_compile.c (every filter's header compiles with NVRTC) and
 * tests/gpu/test_user_kernels.c (user kernels equal the built-ins bit for bit).
 * ------------------------------------------------------------------------------------------------ */
#include "user_kernel.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct user_field {
    char name[48];
    fv_user_field_type type;
    int count; /* 1, or an array's length */
    size_t offset;
    const char *comment;
} user_field;

/* a C identifier from a name: letters, digits and '_', others become '_' ("one-pass") */
static void identifier(const char *name, char *out, size_t size, int upper)
{
    size_t n = 0;
    if (isdigit((unsigned char)name[0]) && n + 1 < size) out[n++] = '_';
    for (const char *c = name; *c && n + 1 < size; c++) {
        int ch = isalnum((unsigned char)*c) ? (unsigned char)*c : '_';
        out[n++] = (char)(upper ? toupper(ch) : tolower(ch));
    }
    out[n] = 0;
}

static int fields_of(const fv_filter *f, user_field *out, int max)
{
    int n = 0;
    size_t offset = 0;
    for (int i = 0; i < f->n_params && n < max; i++, n++) {
        const fv_param_desc *d = &f->params[i];
        memset(&out[n], 0, sizeof out[n]);
        identifier(d->name, out[n].name, sizeof out[n].name, 0);
        if (d->type == FV_PARAM_IMAGE) {
            /* the image itself is not passed to user kernels: only whether one was given */
            size_t len = strlen(out[n].name);
            snprintf(out[n].name + len, sizeof out[n].name - len, "_given");
        }
        out[n].type = d->type == FV_PARAM_REAL ? FV_USER_FIELD_FLOAT : FV_USER_FIELD_INT;
        out[n].count = 1;
        out[n].offset = offset;
        out[n].comment = d->help;
        offset += 4;
    }
    const fv_user_contract_desc *uc = f->user_contract;
    for (int k = 0; uc && k < uc->n_fields && k < FV_USER_MAX_FIELDS && n < max; k++, n++) {
        const fv_user_field *d = &uc->fields[k];
        memset(&out[n], 0, sizeof out[n]);
        snprintf(out[n].name, sizeof out[n].name, "%s", d->name);
        out[n].type = d->type;
        out[n].count = d->count;
        out[n].offset = offset;
        out[n].comment = d->comment;
        offset += 4 * (size_t)out[n].count;
    }
    return n;
}

#define MAX_FIELDS (FV_MAX_PARAMS + FV_USER_MAX_FIELDS)

size_t fv_user_params_size(const fv_filter *f)
{
    user_field fl[MAX_FIELDS];
    const int n = fields_of(f, fl, MAX_FIELDS);
    return n ? fl[n - 1].offset + 4 * (size_t)fl[n - 1].count : 4; /* 4: one int for "none" */
}

fv_status fv_user_params_pack(const fv_filter *f, const fv_params *p, void *out, size_t size)
{
    const size_t need = fv_user_params_size(f);
    if (size < need)
        return fv_fail(FV_ERR_ARG, "%s: user parameters need %zu bytes, got %zu", f->name, need,
                       size);
    memset(out, 0, need);
    const fv_params r = fv_params_resolved(f, p);
    unsigned char *base = out;
    for (int i = 0; i < f->n_params; i++) {
        if (f->params[i].type == FV_PARAM_REAL) {
            const float v = (float)r.value[i];
            memcpy(base + 4 * (size_t)i, &v, 4);
        } else {
            const int v = (int)r.value[i];
            memcpy(base + 4 * (size_t)i, &v, 4);
        }
    }
    const fv_user_contract_desc *uc = f->user_contract;
    if (uc && uc->fill) uc->fill(&r, base + 4 * (size_t)f->n_params);
    return FV_OK;
}

/* ---- the header text ----------------------------------------------------------------------- */
typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void
put(text *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 8192;
        while (cap <= t->len + (size_t)n) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* A comment's lines, each after `lead`. */
static void put_comment(text *t, const char *lead, const char *body)
{
    put(t, "%s/* ", lead);
    for (const char *c = body; *c; c++) {
        if (*c == '\n')
            put(t, "\n%s   ", lead);
        else
            put(t, "%c", *c);
    }
    put(t, " */\n");
}

static const char contract_common[] =
    "/* ---- images: RGBA8, rows `pitch` bytes apart (pitch >= 4 * width, a multiple of 4) ---- */\n"
    "struct fv_image {\n"
    "    unsigned char *data;\n"
    "    int width, height;\n"
    "    size_t pitch;\n"
    "};\n"
    "static_assert(sizeof(fv_image) == 24, \"fv_image: the host passes 24 bytes\");\n"
    "\n"
    "/* Two-pass kernels: an image of the same size with 16 bytes per pixel (uint4 or float4), e.g.\n"
    "   exact column sums of a separable filter. Its content is undefined before pass 1. */\n"
    "struct fv_scratch {\n"
    "    unsigned char *data;\n"
    "    int width, height;\n"
    "    size_t pitch;\n"
    "};\n"
    "static_assert(sizeof(fv_scratch) == 24, \"fv_scratch: the host passes 24 bytes\");\n"
    "\n"
    "/* clamp-to-edge: the index of the pixel the reference reads for v (hi = width - 1 or\n"
    "   height - 1) */\n"
    "static __device__ __forceinline__ int fv_clamp(int v, int hi)\n"
    "{\n"
    "    return min(max(v, 0), hi);\n"
    "}\n"
    "static __device__ __forceinline__ const uchar4 *fv_row(const fv_image &img, int y)\n"
    "{\n"
    "    return reinterpret_cast<const uchar4 *>(img.data + (size_t)y * img.pitch);\n"
    "}\n"
    "static __device__ __forceinline__ uchar4 *fv_row_out(const fv_image &img, int y)\n"
    "{\n"
    "    return reinterpret_cast<uchar4 *>(img.data + (size_t)y * img.pitch);\n"
    "}\n"
    "/* pixel (x, y) with replicated borders: any x and y are allowed */\n"
    "static __device__ __forceinline__ uchar4 fv_pixel_clamped(const fv_image &img, int x, int y)\n"
    "{\n"
    "    return fv_row(img, fv_clamp(y, img.height - 1))[fv_clamp(x, img.width - 1)];\n"
    "}\n"
    "static __device__ __forceinline__ uint4 *fv_scratch_row(const fv_scratch &s, int y)\n"
    "{\n"
    "    return reinterpret_cast<uint4 *>(s.data + (size_t)y * s.pitch);\n"
    "}\n"
    "static __device__ __forceinline__ float4 *fv_scratch_row_f(const fv_scratch &s, int y)\n"
    "{\n"
    "    return reinterpret_cast<float4 *>(s.data + (size_t)y * s.pitch);\n"
    "}\n"
    "\n"
    "/* ---- launch: optional ----\n"
    "   Without FV_LAUNCH every pass runs 16 x 16 threads per block, one pixel per thread, no\n"
    "   dynamic shared memory: grid = ceil(width / 16) x ceil(height / 16). With it, write\n"
    "       FV_LAUNCH(p, pass)\n"
    "       {\n"
    "           fv_launch l = fv_launch_block(16, 16);\n"
    "           l.smem_bytes = (16 + 2 * p.radius) * (16 + 2 * p.radius) * sizeof(uchar4);\n"
    "           return l;\n"
    "       }\n"
    "   p is the parameter struct, pass 0 (fv_pass or fv_pass1) or 1 (fv_pass2). filterview runs\n"
    "   it on the GPU once whenever the parameters change and launches\n"
    "   grid = ceil(width / (block_x * pixels_x)) x ceil(height / (block_y * pixels_y)) blocks. */\n"
    "struct fv_launch {\n"
    "    int block_x, block_y;    /* threads per block: block_x * block_y <= 1024 */\n"
    "    int pixels_x, pixels_y;  /* output pixels per thread in x and y (>= 1) */\n"
    "    unsigned int smem_bytes; /* dynamic shared memory per block (extern __shared__) */\n"
    "};\n"
    "static_assert(sizeof(fv_launch) == 20, \"fv_launch: the host reads 20 bytes\");\n"
    "static __device__ __forceinline__ fv_launch fv_launch_block(int block_x, int block_y)\n"
    "{\n"
    "    fv_launch l = {block_x, block_y, 1, 1, 0u};\n"
    "    return l;\n"
    "}\n"
    "#define FV_LAUNCH(P, PASS)                                                                  \\\n"
    "    __device__ fv_launch fv_launch_result;                                                 \\\n"
    "    static __device__ fv_launch fv_launch_of(const fv_params P, int PASS);                 \\\n"
    "    extern \"C\" __global__ void fv_configure(const fv_params p_, int pass_)                 \\\n"
    "    {                                                                                      \\\n"
    "        fv_launch_result = fv_launch_of(p_, pass_);                                        \\\n"
    "    }                                                                                      \\\n"
    "    static __device__ fv_launch fv_launch_of(const fv_params P, int PASS)\n"
    "\n"
    "/* ---- entry points: define fv_pass, or fv_pass1 and fv_pass2 ----\n"
    "   One pass: src -> dst. Two passes (separable filters): pass 1 reads src and writes the\n"
    "   scratch image, pass 2 reads it (and src, for alpha) and writes dst. A definition must\n"
    "   match these declarations exactly (extern \"C\" comes from them; it may be omitted). Both\n"
    "   images have the same size; src and dst never overlap. With iterations > 1, filterview\n"
    "   runs the whole kernel again on its own output. */\n"
    "extern \"C\" __global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p);\n"
    "extern \"C\" __global__ void fv_pass1(const fv_image src, const fv_scratch scratch,\n"
    "                                     const fv_params p);\n"
    "extern \"C\" __global__ void fv_pass2(const fv_scratch scratch, const fv_image src,\n"
    "                                     const fv_image dst, const fv_params p);\n";

char *fv_user_contract(const fv_filter *f)
{
    text t = {0};
    char tag[64], upper[64];
    identifier(f->name, tag, sizeof tag, 0);
    identifier(f->name, upper, sizeof upper, 1);
    put(&t,
        "/* filterview.h: the contract between filterview and your kernel for the filter \"%s\":\n"
        " * %s.\n"
        " * Generated by filterview from its parameter table: print it with your version of the\n"
        " * program rather than copying it, it follows the filter.\n"
        " *\n"
        " * Correct means equal to the reference (the plain-C implementation, variant cpu), which\n"
        " * follows these rules:\n"
        " * - borders are replicated (clamp-to-edge): a pixel outside the image reads the nearest\n"
        " *   pixel inside it (fv_clamp, fv_pixel_clamped);\n"
        " * - alpha is kept: dst.w = src.w of the same pixel, R, G and B are filtered;\n"
        " * - results are 8-bit, rounded as the filter says:\n",
        f->name, f->summary);
    const fv_user_contract_desc *uc = f->user_contract;
    put(&t, "%s",
        uc && uc->conventions
            ? uc->conventions
            : " *   (this filter's rules are those of its reference; see its summary)\n");
    put(&t, " */\n#pragma once\n\n");

    /* the parameters */
    user_field fl[MAX_FIELDS];
    const int n = fields_of(f, fl, MAX_FIELDS);
    for (int i = 0; i < f->n_params; i++) {
        const fv_param_desc *d = &f->params[i];
        if (d->type != FV_PARAM_CHOICE) continue;
        char pname[64];
        identifier(d->name, pname, sizeof pname, 1);
        put(&t, "/* values of %s */\n", fl[i].name);
        for (int c = 0; c < d->n_choices; c++) {
            char cname[64];
            identifier(d->choices[c], cname, sizeof cname, 1);
            put(&t, "#define FV_%s_%s_%s %d\n", upper, pname, cname, c);
        }
    }
    put(&t,
        "/* The filter's parameters, checked against their ranges before any launch; derived values\n"
        "   filled in (radius 0 = ceil(3 sigma) arrives as the radius used). Passed by value: it\n"
        "   lives in the constant bank like the built-in kernels' weights. */\n"
        "struct fv_%s_params {\n",
        tag);
    if (n == 0) put(&t, "    int none; /* this filter has no parameters */\n");
    for (int i = 0; i < n; i++) {
        char lead[8] = "    ";
        put_comment(&t, lead, fl[i].comment ? fl[i].comment : "");
        if (fl[i].count > 1)
            put(&t, "    %s %s[%d];\n", fl[i].type == FV_USER_FIELD_FLOAT ? "float" : "int",
                fl[i].name, fl[i].count);
        else
            put(&t, "    %s %s;\n", fl[i].type == FV_USER_FIELD_FLOAT ? "float" : "int",
                fl[i].name);
    }
    put(&t, "};\ntypedef fv_%s_params fv_params;\n", tag);
    /* every field is 4 bytes (int or float, or arrays of them) in the host's order: the size
       pins the layout */
    put(&t, "static_assert(sizeof(fv_params) == %zu, \"fv_params: host layout\");\n",
        fv_user_params_size(f));
    for (int k = 0; uc && k < uc->n_constants && k < FV_USER_MAX_CONSTANTS; k++)
        put(&t, "#define %s %d\n", uc->constants[k].name, uc->constants[k].value);
    put(&t, "\n%s", contract_common);
    if (t.failed) {
        free(t.s);
        fv_fail(FV_ERR_MEMORY, "out of memory for the contract header of %s", f->name);
        return NULL;
    }
    return t.s;
}
