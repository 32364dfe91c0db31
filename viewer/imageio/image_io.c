/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/image_io.c: image files in and out. Input: the file is opened without blocking
 * (a FIFO or a device is refused by name), read whole, told apart by its first bytes (missing,
 * directory, empty, unknown format) and handed to its codec (codec.h), for the file's own pixel
 * type and channels or for RGBA8 (a TIFF is read natively and converted).
 * Output: PNG, JPEG, PNM or TIFF by the name's ending, the image first converted to what the
 * format holds (image_convert.c) and any loss reported, written to a temporary name in the
 * target's folder (within NAME_MAX) and renamed (keeping the replaced file's mode and, where
 * permitted, owner); read-only targets are refused, symbolic links written through, and the
 * temporary file is removed by any signal that ends the process while it exists (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 ...), on whichever thread it was being made; SIGPIPE and
 * SIGXFSZ are ignored, so that such writes fail.
 * "-" is standard input (read to its end, the format told by its bytes as for a file) and standard
 * output (written as it is encoded: a pipe cannot be renamed into).
 * Checked by tests/cpu/test_image_io.c, tests/cpu/test_image_io_typed.c and the CLI tests.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"

#include "codec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE_BYTES ((size_t)2 << 30) /* no supported file of an allowed size is larger */

/* ---- input ---- */

/* What a path that is no regular file is, for the message. */
static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "of an unknown kind";
}

/* Opens an input without blocking: open() of a FIFO waits for a writer and its read() for data,
 * and a device may never end, so only regular files are read (and directories named as such).
 * Standard input ("-"), when it is supported, is opened here: it is a pipe to be read to its end,
 * not a file whose size fstat() tells. */
static fv_status open_input(const char *path, const char *name, int *fd_out, struct stat *st)
{
    *fd_out = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO && stat(path, st) == 0 && !S_ISREG(st->st_mode)) /* a socket */
            return fv_fail(FV_ERR_IO, "'%s': not a regular file (%s)", name,
                           file_kind(st->st_mode));
        return fv_fail(FV_ERR_IO, "cannot open '%s': %s", name, strerror(e));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return fv_fail(FV_ERR_IO, "cannot open '%s': %s", name, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        if (S_ISDIR(st->st_mode))
            return fv_fail(FV_ERR_IO, "'%s' is a directory, not an image", name);
        return fv_fail(FV_ERR_IO, "'%s': not a regular file (%s)", name, file_kind(st->st_mode));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *fd_out = fd;
    return FV_OK;
}

int image_is_stdio(const char *path)
{
    return path && strcmp(path, IMAGE_STDIO) == 0;
}

/* ---- standard input: its format first, then no more than that format can need ---- */

#define STDIN_SNIFF_BYTES    16                 /* every magic fits */
#define STDIN_METADATA_BYTES ((size_t)16 << 20) /* ICC profiles, EXIF, text chunks */
#define STDIN_HEADER_MAX     ((size_t)64 << 10) /* a PNM header (comments included) */
#define STDIN_JPEG_FRAME_MAX ((size_t)32 << 20) /* a JPEG's frame header comes within it */

typedef enum stdin_format {
    STDIN_UNKNOWN,
    STDIN_PNG,
    STDIN_JPEG,
    STDIN_PNM,
    STDIN_BMP
} stdin_format;

static stdin_format sniff(const uint8_t *p, size_t n)
{
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return STDIN_PNG;
    if (n >= 3 && memcmp(p, "\xff\xd8\xff", 3) == 0) return STDIN_JPEG;
    if (n >= 3 && p[0] == 'P' && p[1] && strchr("2356", p[1]) && p[2] && strchr(" \t\r\n#", p[2]))
        return STDIN_PNM;
    if (n >= 2 && p[0] == 'B' && p[1] == 'M') return STDIN_BMP;
    return STDIN_UNKNOWN;
}

static size_t sat_mul(size_t a, size_t b)
{
    return a && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}

static size_t sat_add(size_t a, size_t b)
{
    return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* What the first n bytes tell of the whole: STDIN_MORE while they do not tell yet, STDIN_STOP
 * when the header is already wrong (the decoder, given what there is, says how), else the most
 * bytes an image of the size its header declares can take: its raw pixels twice (compression
 * that does not pay, PNG's chunks, BMP's run lengths, a JPEG of noise) and its metadata. */
#define STDIN_MORE 0
#define STDIN_STOP 1
static size_t stdin_bound(stdin_format format, const uint8_t *p, size_t n, char *what, size_t size)
{
    uint64_t w = 0, h = 0, samples = 0, bytes_per_sample = 1;
    size_t before = 0; /* bytes before the pixels that are not metadata (a JPEG's frame header) */
    switch (format) {
    case STDIN_PNG: {
        if (n < 26) return STDIN_MORE;
        static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
        if (memcmp(p + 12, "IHDR", 4) != 0 || p[25] > 6 || !channels[p[25]]) return STDIN_STOP;
        w = be32(p + 16), h = be32(p + 20), samples = (uint64_t)channels[p[25]];
        bytes_per_sample = p[24] > 8 ? 2 : 1;
        break;
    }
    case STDIN_BMP: {
        if (n < 30) return STDIN_MORE;
        const uint32_t header = le32(p + 14);
        const int core = header == 12; /* OS/2: 16-bit sides */
        w = core ? (uint64_t)(p[18] | p[19] << 8) : (uint64_t)llabs((int32_t)le32(p + 18));
        h = core ? (uint64_t)(p[20] | p[21] << 8) : (uint64_t)llabs((int32_t)le32(p + 22));
        samples = 4; /* 32 bits a pixel at most */
        break;
    }
    case STDIN_PNM: {
        /* "P6 <w> <h> <maxval>": three numbers after the magic, comments from '#' to the end */
        uint64_t v[3] = {0, 0, 0};
        size_t i = 2;
        for (int k = 0; k < 3; k++) {
            for (;;) {
                while (i < n && strchr(" \t\r\n", p[i])) i++;
                if (i < n && p[i] == '#')
                    while (i < n && p[i] != '\n') i++;
                else
                    break;
            }
            if (i == n) return n >= STDIN_HEADER_MAX ? STDIN_STOP : STDIN_MORE;
            if (p[i] < '0' || p[i] > '9') return STDIN_STOP;
            while (i < n && p[i] >= '0' && p[i] <= '9' && v[k] <= FV_MAX_DIMENSION * 2ull)
                v[k] = v[k] * 10 + (uint64_t)(p[i++] - '0');
            if (i == n) return n >= STDIN_HEADER_MAX ? STDIN_STOP : STDIN_MORE;
            if (p[i] >= '0' && p[i] <= '9') return STDIN_STOP; /* a number past any size */
        }
        w = v[0], h = v[1];
        samples = p[1] == '3' || p[1] == '6' ? 3 : 1;
        /* plain (ASCII) samples: up to "65535" and a separator each */
        bytes_per_sample = p[1] == '2' || p[1] == '3' ? 6 : v[2] > 255 ? 2 : 1;
        before = i;
        break;
    }
    case STDIN_JPEG: {
        /* segments from the start to the frame header (SOFn), which holds the size */
        size_t i = 2;
        for (;;) {
            if (i + 4 > n) return n >= STDIN_JPEG_FRAME_MAX ? STDIN_STOP : STDIN_MORE;
            if (p[i] != 0xff) return STDIN_STOP;
            const uint8_t m = p[i + 1];
            if (m == 0xff) { /* fill byte */
                i++;
                continue;
            }
            if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) { /* no length */
                i += 2;
                continue;
            }
            if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
                if (i + 10 > n) return STDIN_MORE;
                h = (uint64_t)(p[i + 5] << 8 | p[i + 6]), w = (uint64_t)(p[i + 7] << 8 | p[i + 8]);
                samples = p[i + 9];
                before = i;
                break;
            }
            i += 2 + (size_t)(p[i + 2] << 8 | p[i + 3]);
        }
        if (h == 0) h = FV_MAX_DIMENSION; /* the height may come later (DNL) */
        break;
    }
    case STDIN_UNKNOWN: return STDIN_STOP;
    }
    if (w == 0 || h == 0 || w > FV_MAX_DIMENSION || h > FV_MAX_DIMENSION || samples == 0)
        return STDIN_STOP; /* the decoder names what is wrong with the header */
    static const char *const names[] = {"", "PNG", "JPEG", "PNM", "BMP"};
    snprintf(what, size, "a %llux%llu %s", (unsigned long long)w, (unsigned long long)h,
             names[format]);
    const size_t raw = sat_mul(sat_mul((size_t)w, (size_t)h), (size_t)(samples * bytes_per_sample));
    size_t bound = sat_add(sat_add(sat_mul(raw, 2), (size_t)h * 4), before);
    bound = sat_add(bound, STDIN_METADATA_BYTES);
    return bound > MAX_FILE_BYTES ? MAX_FILE_BYTES : bound < 2 ? 2 : bound;
}

/* Standard input: a pipe does not tell its size. Its first bytes tell the format (anything else
 * is refused before more is read), the header the size, and so the most bytes such an image can
 * take: reading stops there, instead of at 2 GiB, when the stream goes on. */
static fv_status read_stdin(uint8_t **data, size_t *size)
{
    static const char name[] = "standard input";
    size_t cap = 1 << 16, got = 0, limit = STDIN_MORE;
    stdin_format format = STDIN_UNKNOWN;
    char what[96] = "";
    uint8_t *buf = malloc(cap);
    if (!buf) return fv_fail(FV_ERR_MEMORY, "out of host memory reading %s", name);
    fv_status s = FV_OK;
    for (int eof = 0; !eof;) {
        if (got == cap) {
            const size_t want = limit > STDIN_STOP && cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            uint8_t *grown = realloc(buf, want);
            if (!grown) {
                s = fv_fail(FV_ERR_MEMORY, "out of host memory reading %s", name);
                break;
            }
            buf = grown;
            cap = want;
        }
        ssize_t n = read(STDIN_FILENO, buf + got, cap - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            s = fv_fail(FV_ERR_IO, "cannot read %s: %s", name, strerror(errno));
            break;
        }
        eof = n == 0;
        got += (size_t)n;
        if (got < STDIN_SNIFF_BYTES && !eof) continue;
        if (format == STDIN_UNKNOWN && got && (format = sniff(buf, got)) == STDIN_UNKNOWN) {
            /* told by its first bytes, as a file is: image_load says what it is */
            break;
        }
        if (limit == STDIN_MORE && format != STDIN_UNKNOWN)
            limit = stdin_bound(format, buf, got, what, sizeof what);
        if (limit == STDIN_STOP) break; /* a bad header: the decoder says what is wrong */
        if (limit > STDIN_STOP && got > limit) {
            s = fv_fail(FV_ERR_SIZE, "%s goes on past %zu MiB: more than %s can take", name,
                        limit >> 20, what);
            break;
        }
        if (limit == STDIN_MORE && got >= MAX_FILE_BYTES) {
            s = fv_fail(FV_ERR_SIZE,
                        "%s holds more than %zu MiB: larger than any image "
                        "filterview reads",
                        name, MAX_FILE_BYTES >> 20);
            break;
        }
    }
    if (s == FV_OK && got == 0) s = fv_fail(FV_ERR_FORMAT, "%s is empty", name);
    if (s != FV_OK) {
        free(buf);
        return s;
    }
    *data = buf;
    *size = got;
    return FV_OK;
}

/* a: where the bytes go (NULL: malloc) */
static fv_status read_whole_file(const char *path, const char *name, const image_allocator *a,
                                 uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (image_is_stdio(path)) {
        FV_TRY(read_stdin(data, size));
        if (!a) return FV_OK;
        /* its length is known only at its end: read into malloc'd memory, then moved */
        uint8_t *moved = a->alloc(a->context, *size);
        if (moved) memcpy(moved, *data, *size);
        free(*data);
        *data = moved;
        if (!moved) return fv_fail(FV_ERR_MEMORY, "out of host memory reading standard input");
        return FV_OK;
    }
    int fd;
    struct stat st;
    FV_TRY(open_input(path, name, &fd, &st));
    fv_status s = FV_OK;
    if (st.st_size == 0)
        s = fv_fail(FV_ERR_FORMAT, "'%s' is empty", name);
    else if ((unsigned long long)st.st_size > MAX_FILE_BYTES)
        s = fv_fail(FV_ERR_SIZE, "'%s' is %lld MiB: larger than any image filterview reads", name,
                    (long long)st.st_size >> 20);
    uint8_t *buf = s != FV_OK ? NULL
                   : a        ? a->alloc(a->context, (size_t)st.st_size)
                              : malloc((size_t)st.st_size);
    if (s == FV_OK && !buf) s = fv_fail(FV_ERR_MEMORY, "out of host memory reading '%s'", name);
    size_t got = 0;
    while (s == FV_OK && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            s = fv_fail(FV_ERR_IO, "cannot read '%s': %s", name, strerror(errno));
        else if (n == 0)
            break; /* shrank while we read: the decoder sees a truncated file */
        else
            got += (size_t)n;
    }
    close(fd);
    if (s != FV_OK) {
        if (buf) a ? a->release(a->context, buf) : free(buf);
        return s;
    }
    *data = buf;
    *size = got;
    return FV_OK;
}

static int starts_with(const uint8_t *data, size_t size, const char *magic, size_t n)
{
    return size >= n && memcmp(data, magic, n) == 0;
}

static int is_tiff(const uint8_t *data, size_t size)
{
    return starts_with(data, size, "II*\0", 4) || starts_with(data, size, "MM\0*", 4) ||
           starts_with(data, size, "II+\0", 4) || starts_with(data, size, "MM\0+", 4);
}

/* A TIFF as RGBA8 for image_load: its native image converted, and what that cut said. */
static fv_status tiff_as_rgba8(const char *name, const uint8_t *data, size_t size,
                               const image_allocator *a, fv_image *out, image_load_info *info)
{
    image_load_info own = {0}, *i = info ? info : &own;
    fv_image native;
    FV_TRY(codec_tiff_decode(name, data, size, NULL, &native, i));
    image_convert_loss loss;
    fv_status s = image_convert(&native, FV_PIXEL_U8, 4, a, out, &loss);
    fv_host_image_free(&native);
    if (s == FV_OK && loss.depth) {
        i->lossy_to_8bit = 1;
        snprintf(i->lossy_note, sizeof i->lossy_note, "'%s': %s TIFF read as 8-bit (%s)", name,
                 i->file_type == FV_PIXEL_F32 ? "float32" : "16-bit",
                 i->file_type == FV_PIXEL_F32 ? "clamped to 0..1 and rounded" : "rounded");
    }
    image_metadata_free(&own.metadata);
    if (s != FV_OK && info) image_metadata_free(&info->metadata);
    return s;
}

/* The file's name as messages show it: printable, "standard input" for "-". */
static void shown_name(const char *path, char *name, size_t size)
{
    image_printable(image_is_stdio(path) ? "standard input" : path, name, size);
}

fv_status image_read_file(const char *path, uint8_t **data, size_t *size)
{
    char name[IMAGE_NAME_SHOWN];
    shown_name(path, name, sizeof name);
    return read_whole_file(path, name, NULL, data, size);
}

fv_status image_read_file_to(const char *path, const image_allocator *a, uint8_t **data,
                             size_t *size)
{
    char name[IMAGE_NAME_SHOWN];
    shown_name(path, name, sizeof name);
    return read_whole_file(path, name, a, data, size);
}

/* Decodes a whole file already in memory, whatever its format. */
static fv_status decode_any(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, codec_want want, fv_image *out,
                            image_load_info *info)
{
    fv_status s;
    if (starts_with(data, size, "\x89PNG\r\n\x1a\n", 8))
        s = codec_png_decode(name, data, size, a, want, out, info);
    else if (starts_with(data, size, "\xff\xd8\xff", 3))
        s = codec_jpeg_decode(name, data, size, a, want, out, info);
    else if (size >= 3 && data[0] == 'P' && strchr("2356", data[1]) && data[1] &&
             strchr(" \t\r\n#", data[2]))
        s = codec_pnm_decode(name, data, size, a, want, out, info);
    else if (starts_with(data, size, "BM", 2))
        s = codec_bmp_decode(name, data, size, a, want, out, info);
    else if (is_tiff(data, size))
        s = want == CODEC_NATIVE ? codec_tiff_decode(name, data, size, a, out, info)
                                 : tiff_as_rgba8(name, data, size, a, out, info);
    else if (starts_with(data, size, "GIF8", 4) || starts_with(data, size, "#?RADIANCE", 10) ||
             starts_with(data, size, "#?RGBE", 6) || starts_with(data, size, "8BPS", 4))
        s = fv_fail(FV_ERR_FORMAT,
                    "'%s' is a %s file, which filterview does not read: convert it to "
                    "PNG",
                    name,
                    data[0] == 'G'   ? "GIF"
                    : data[0] == '8' ? "Photoshop"
                                     : "Radiance HDR");
    else
        s = fv_fail(FV_ERR_FORMAT,
                    "'%s' is not an image filterview can read (it reads PNG, JPEG, "
                    "PNM, BMP and TIFF)",
                    name);
    return s;
}

static fv_status load_any(const char *path, const image_allocator *a, codec_want want,
                          fv_image *out, image_load_info *info)
{
    memset(out, 0, sizeof *out);
    if (info) memset(info, 0, sizeof *info);
    char name[IMAGE_NAME_SHOWN];
    shown_name(path, name, sizeof name);
    uint8_t *data = NULL;
    size_t size = 0;
    FV_TRY(read_whole_file(path, name, NULL, &data, &size));
    fv_status s = decode_any(name, data, size, a, want, out, info);
    free(data);
    return s;
}

fv_status image_load_native_bytes(const char *path, const uint8_t *data, size_t size,
                                  const image_allocator *a, fv_image *out, image_load_info *info)
{
    memset(out, 0, sizeof *out);
    if (info) memset(info, 0, sizeof *info);
    char name[IMAGE_NAME_SHOWN];
    shown_name(path, name, sizeof name);
    return decode_any(name, data, size, a, CODEC_NATIVE, out, info);
}

fv_status image_load_native(const char *path, const image_allocator *a, fv_image *out,
                            image_load_info *info)
{
    return load_any(path, a, CODEC_NATIVE, out, info);
}

fv_status image_load_rgba8(const char *path, const image_allocator *a, fv_image *out,
                           image_load_info *info)
{
    return load_any(path, a, CODEC_RGBA8, out, info);
}

fv_status image_load_with(const char *path, const image_allocator *a, fv_image *out)
{
    return load_any(path, a, CODEC_RGBA8, out, NULL);
}

fv_status image_load(const char *path, fv_image *out)
{
    return image_load_with(path, NULL, out);
}

fv_status image_load_limited(const char *path, int max_width, int max_height, fv_image *out)
{
    codec_set_limit(max_width, max_height);
    fv_status s = image_load_with(path, NULL, out);
    codec_set_limit(0, 0);
    if (s == FV_OK && (out->width > max_width || out->height > max_height)) {
        char name[IMAGE_NAME_SHOWN];
        image_printable(path, name, sizeof name);
        s = fv_fail(FV_ERR_SIZE, "'%s' is %dx%d: larger than %dx%d", name, out->width, out->height,
                    max_width, max_height);
        fv_host_image_free(out);
    }
    return s;
}

/* ---- output paths ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int ends_with(const char *path, const char *ending)
{
    const size_t n = strlen(path), k = strlen(ending);
    return n >= k && strcasecmp(path + n - k, ending) == 0;
}

/* The endings image_save writes and the format of each; the name before one may not be empty. */
static const struct {
    const char *ending;
    image_format format;
} output_endings[] = {
    {".png", IMAGE_FORMAT_PNG},  {".jpg", IMAGE_FORMAT_JPEG},  {".jpeg", IMAGE_FORMAT_JPEG},
    {".pgm", IMAGE_FORMAT_PNM},  {".ppm", IMAGE_FORMAT_PNM},   {".pnm", IMAGE_FORMAT_PNM},
    {".tif", IMAGE_FORMAT_TIFF}, {".tiff", IMAGE_FORMAT_TIFF},
};

/* The format the name's ending says, IMAGE_FORMAT_BY_NAME for none (or nothing before it). */
static image_format format_by_name(const char *path)
{
    const char *base = base_name(path);
    for (size_t i = 0; i < sizeof output_endings / sizeof output_endings[0]; i++)
        if (ends_with(base, output_endings[i].ending) &&
            strlen(base) > strlen(output_endings[i].ending))
            return output_endings[i].format;
    return IMAGE_FORMAT_BY_NAME;
}

image_format image_format_of(const char *path, image_format opt_format)
{
    if (opt_format != IMAGE_FORMAT_BY_NAME) return opt_format;
    const image_format f = image_is_stdio(path) ? IMAGE_FORMAT_BY_NAME : format_by_name(path);
    return f == IMAGE_FORMAT_BY_NAME ? IMAGE_FORMAT_PNG : f;
}

const char *image_format_name(image_format f)
{
    return f == IMAGE_FORMAT_JPEG   ? "JPEG"
           : f == IMAGE_FORMAT_PNM  ? "PNM"
           : f == IMAGE_FORMAT_TIFF ? "TIFF"
                                    : "PNG";
}

/* The folder part of path ("." when none). */
static void dir_name(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, size, ".");
}

/* What rename() will replace: path itself, or the file a symbolic link points to. */
static fv_status resolve_target(const char *path, const char *name, char *target, size_t size)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char resolved[PATH_MAX];
        if (!realpath(path, resolved))
            return fv_fail(FV_ERR_IO,
                           "cannot write '%s': it is a symbolic link to a missing file "
                           "or folder",
                           name);
        if ((size_t)snprintf(target, size, "%s", resolved) >= size)
            return fv_fail(FV_ERR_IO, "cannot write '%s': the name is too long", name);
        return FV_OK;
    }
    if ((size_t)snprintf(target, size, "%s", path) >= size)
        return fv_fail(FV_ERR_IO, "cannot write '%s': the name is too long", name);
    return FV_OK;
}

/* Checks of the final target (after links): no directory, no read-only file, a writable folder. */
static fv_status check_target(const char *target, const char *name)
{
    struct stat st;
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return fv_fail(FV_ERR_IO, "cannot write '%s': it is a directory", name);
        if (!S_ISREG(st.st_mode))
            return fv_fail(FV_ERR_IO, "cannot write '%s': it is not a regular file", name);
        /* root may write anything: a file nobody may write is still read-only */
        if ((st.st_mode & 0222) == 0 || access(target, W_OK) != 0)
            return fv_fail(FV_ERR_IO,
                           "cannot write '%s': it is read-only (filterview does not "
                           "replace it)",
                           name);
    }
    if (strlen(base_name(target)) > NAME_MAX)
        return fv_fail(FV_ERR_IO, "cannot write '%s': the file name is longer than %d bytes", name,
                       NAME_MAX);
    char dir[PATH_MAX], dir_text[IMAGE_NAME_SHOWN];
    dir_name(target, dir, sizeof dir);
    image_printable(dir, dir_text, sizeof dir_text);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fv_fail(FV_ERR_IO, "cannot write '%s': directory '%s' does not exist", name,
                       dir_text);
    if (access(dir, W_OK) != 0)
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
    return FV_OK;
}

fv_status image_check_output_path(const char *path)
{
    if (image_is_stdio(path)) return FV_OK;
    char name[IMAGE_NAME_SHOWN];
    image_printable(path, name, sizeof name);
    if (format_by_name(path) == IMAGE_FORMAT_BY_NAME)
        return fv_fail(FV_ERR_ARG,
                       "output '%s' must end in .png, .jpg, .jpeg, .pgm, .ppm, .pnm, .tif or "
                       ".tiff (after a name)",
                       name);
    char target[PATH_MAX];
    FV_TRY(resolve_target(path, name, target, sizeof target));
    return check_target(target, name);
}

/* ---- temporary files, removed on signals ---- */

#define TEMP_SLOTS 128

static char temp_paths[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_live[TEMP_SLOTS];
static pthread_once_t temp_once = PTHREAD_ONCE_INIT;
/* Signals whose default action ends the process without a fault: each removes the temporary
 * files, then ends the process as it would have (the default action, re-raised). Faults (SIGSEGV,
 * SIGBUS, SIGABRT ...) are left alone: memory may be corrupt, and a garbled path must never be
 * removed. SIGPIPE and SIGXFSZ are ignored instead, so that a write to a closed pipe or past the
 * file size limit (ulimit -f) fails with EPIPE or EFBIG and is reported like any failed write. */
static const int temp_signals[] = {
    SIGINT,    SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
#ifdef SIGPOLL
    SIGPOLL,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
static const int temp_ignored[] = {SIGPIPE, SIGXFSZ};

/* Creating a temporary file and registering it are two steps, and a signal may come on another
 * thread between them, or while the handler runs: other threads go on creating files until the
 * process ends. So a creation counts itself in temp_creating (with the signals blocked on its own
 * thread), and the handler first sets temp_dying, waits for the creations in flight to be
 * registered, then removes every registered file; a creation that starts after temp_dying is
 * refused. Both flags are sequentially consistent: either the handler sees the creation, or the
 * creation sees temp_dying. */
static volatile sig_atomic_t temp_creating, temp_dying;

static void temp_signal_handler(int sig)
{
    __atomic_store_n(&temp_dying, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&temp_creating, __ATOMIC_SEQ_CST) > 0) {
        /* another thread is between open() and registering: a few instructions */
    }
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (__atomic_load_n(&temp_live[i], __ATOMIC_SEQ_CST) == 1) unlink(temp_paths[i]);
    /* delivered with its default action once this handler returns and unblocks it */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A handler for `sig` unless somebody else already handles or ignores it (nohup stays nohup). */
static void temp_take_signal(int sig, void (*handler)(int))
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigfillset(&sa.sa_mask); /* one handler at a time, every file removed before the end */
    sigaction(sig, &sa, NULL);
}

static void temp_install_handlers(void)
{
    for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++)
        temp_take_signal(temp_signals[i], temp_signal_handler);
#ifdef SIGRTMIN
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) temp_take_signal(sig, temp_signal_handler);
#endif
    for (size_t i = 0; i < sizeof temp_ignored / sizeof temp_ignored[0]; i++)
        temp_take_signal(temp_ignored[i], SIG_IGN);
}

void image_temp_signals_init(void)
{
    pthread_once(&temp_once, temp_install_handlers);
}

/* Registers `path` with the handler; the slot, or -1 when the table is full (still written,
 * just not cleaned up on a signal). A slot is claimed (2) without a lock, so that a handler
 * waiting for this creation on another thread can never wait on a lock its own thread holds;
 * the handler removes live (1) slots only. */
static int temp_register(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        sig_atomic_t expected = 0;
        if (__atomic_compare_exchange_n(&temp_live[i], &expected, 2, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {
            snprintf(temp_paths[i], PATH_MAX, "%s", path);
            __atomic_store_n(&temp_live[i], 1, __ATOMIC_SEQ_CST);
            return i;
        }
    }
    return -1;
}

static void temp_unregister(int slot)
{
    if (slot >= 0) __atomic_store_n(&temp_live[slot], 0, __ATOMIC_SEQ_CST);
}

/* The signals of the handler blocked on this thread (so that it never waits for itself), and
 * this creation counted; 0 when a signal is already ending the process. */
static int temp_creation_begin(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++)
        sigaddset(&set, temp_signals[i]);
#ifdef SIGRTMIN
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) sigaddset(&set, sig);
#endif
    pthread_sigmask(SIG_BLOCK, &set, old);
    __atomic_add_fetch(&temp_creating, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&temp_dying, __ATOMIC_SEQ_CST)) return 1;
    __atomic_sub_fetch(&temp_creating, 1, __ATOMIC_SEQ_CST);
    pthread_sigmask(SIG_SETMASK, old, NULL);
    return 0;
}

static void temp_creation_end(const sigset_t *old)
{
    __atomic_sub_fetch(&temp_creating, 1, __ATOMIC_SEQ_CST);
    pthread_sigmask(SIG_SETMASK, old, NULL); /* a signal that came meanwhile is delivered now */
}

fv_status image_temp_open(const char *path, image_temp *t)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    t->slot = -1;
    char name[IMAGE_NAME_SHOWN];
    image_printable(path, name, sizeof name);
    FV_TRY(resolve_target(path, name, t->target, sizeof t->target));
    FV_TRY(check_target(t->target, name));
    struct stat st;
    int existing = stat(t->target, &st) == 0;
    char dir[PATH_MAX];
    dir_name(t->target, dir, sizeof dir);
    /* NAME.tmp-XXXXXX in the same folder, NAME cut so that the whole stays within NAME_MAX */
    static const char suffix_form[] = ".tmp-";
    const size_t suffix_len = sizeof suffix_form - 1 + 6;
    const char *base = base_name(t->target);
    int keep = (int)strlen(base);
    if ((size_t)keep + suffix_len > NAME_MAX) keep = NAME_MAX - (int)suffix_len;
    static unsigned long counter;
    unsigned long mix = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned long r = mix + __atomic_add_fetch(&counter, 7919, __ATOMIC_RELAXED) * 40503u;
        char tag[7];
        for (int i = 0; i < 6; i++, r /= 36)
            tag[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[r % 36];
        tag[6] = 0;
        const char *prefix = strchr(t->target, '/') == NULL ? "" : strcmp(dir, "/") ? dir : "";
        int len = snprintf(t->path, sizeof t->path, "%s%s%.*s%s%s", prefix,
                           strchr(t->target, '/') ? "/" : "", keep, base, suffix_form, tag);
        if (len < 0 || (size_t)len >= sizeof t->path)
            return fv_fail(FV_ERR_IO, "cannot write '%s': the name is too long", name);
        /* registered once it is ours (the handler must never remove a file somebody else made),
         * before any signal handler can look */
        image_temp_signals_init();
        sigset_t old;
        if (!temp_creation_begin(&old))
            return fv_fail(FV_ERR_IO, "cannot write '%s': the program is being ended", name);
        t->fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        const int e = errno;
        if (t->fd >= 0) t->slot = temp_register(t->path);
        temp_creation_end(&old);
        if (t->fd >= 0) break;
        if (e != EEXIST) return fv_fail(FV_ERR_IO, "cannot write '%s': %s", name, strerror(e));
    }
    if (t->fd < 0) return fv_fail(FV_ERR_IO, "cannot write '%s': no free temporary name", name);
    if (existing) {
        /* a replaced file keeps its owner where this user may give it (root, or the group of a
         * member), then its mode (chown clears set-id bits). A hard link to the old file is not
         * followed: rename() makes a new file, the other names keep the old content. */
        if (fchown(t->fd, st.st_uid, st.st_gid) != 0 && fchown(t->fd, (uid_t)-1, st.st_gid) != 0) {
            /* neither: the new file is this user's, as any file they write */
        }
        (void)fchmod(t->fd, st.st_mode & 07777);
    }
    return FV_OK;
}

void image_temp_discard(image_temp *t)
{
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
    if (t->path[0]) unlink(t->path);
    temp_unregister(t->slot);
    t->slot = -1;
    t->path[0] = 0;
}

fv_status image_temp_commit(image_temp *t, const char *path)
{
    char name[IMAGE_NAME_SHOWN];
    image_printable(path, name, sizeof name);
    int fd = t->fd;
    t->fd = -1;
    if (close(fd) != 0) {
        int e = errno;
        image_temp_discard(t);
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", name, strerror(e));
    }
    if (rename(t->path, t->target) != 0) {
        int e = errno;
        image_temp_discard(t);
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", name, strerror(e));
    }
    temp_unregister(t->slot);
    t->slot = -1;
    t->path[0] = 0;
    return FV_OK;
}

/* ---- output ---- */

/* What `format` holds of an image of `type` and `channels` (image_io.h's table). */
static void format_layout(image_format format, fv_pixel_type type, int channels,
                          fv_pixel_type *to_type, int *to_channels)
{
    *to_type = type;
    *to_channels = channels;
    if (format == IMAGE_FORMAT_TIFF) return;
    if (format == IMAGE_FORMAT_JPEG)
        *to_type = FV_PIXEL_U8;
    else if (type == FV_PIXEL_F32)
        *to_type = FV_PIXEL_U16;
    if (format == IMAGE_FORMAT_PNM && channels == 4) *to_channels = 3;
    /* JPEG's RGBA goes to TurboJPEG as it is (alpha dropped there) */
}

/* An alpha that says something: JPEG drops it. */
static int has_alpha(const fv_image *img)
{
    if (fv_image_channels(img) != 4) return 0;
    const size_t sb = fv_pixel_type_bytes(img->type);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *row = img->data + (size_t)y * img->pitch;
        for (size_t x = 0; x < (size_t)img->width; x++) {
            const uint8_t *a = row + (4 * x + 3) * sb;
            if (img->type == FV_PIXEL_U8    ? a[0] != 255
                : img->type == FV_PIXEL_U16 ? (a[0] != 255 || a[1] != 255)
                                            : memcmp(a, &(float){1.0f}, 4) != 0)
                return 1;
        }
    }
    return 0;
}

/* The PNM maxval: the input's where the samples still fit under it and it suits the type. */
static unsigned pnm_maxval(const fv_image *img, const image_metadata *m)
{
    const unsigned full = img->type == FV_PIXEL_U16 ? 65535u : 255u;
    if (!m || !m->pnm_maxval || m->pnm_maxval >= full ||
        (img->type == FV_PIXEL_U16) != (m->pnm_maxval > 255))
        return full;
    const size_t n = (size_t)img->width * (size_t)fv_image_channels(img);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *row = img->data + (size_t)y * img->pitch;
        for (size_t i = 0; i < n; i++) {
            unsigned v = row[i];
            if (img->type == FV_PIXEL_U16) {
                uint16_t u;
                memcpy(&u, row + 2 * i, 2);
                v = u;
            }
            if (v > m->pnm_maxval) return full;
        }
    }
    return m->pnm_maxval;
}

static const char *layout_name(fv_pixel_type type, int channels, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s",
             type == FV_PIXEL_U8    ? "8-bit"
             : type == FV_PIXEL_U16 ? "16-bit"
                                    : "float32",
             channels == 1   ? "gray"
             : channels == 3 ? "RGB"
                             : "RGBA");
    return buf;
}

/* The one line a lossy save says. */
static void loss_note(image_save_report *r, const char *name, const fv_image *img,
                      const image_convert_loss *loss)
{
    char from[32], to[32], what[160] = "";
    const char *sep = "";
    if (loss->depth) {
        snprintf(what, sizeof what, "%s",
                 img->type == FV_PIXEL_F32 ? "values clamped to 0..1 and rounded"
                                           : "values rounded to 8 bits");
        sep = "; ";
    }
    if (loss->alpha) {
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, "%salpha dropped", sep);
    }
    r->lossy = 1;
    snprintf(r->note, sizeof r->note, "'%s': %s image written as %s %s (%s)", name,
             layout_name(img->type, fv_image_channels(img), from, sizeof from),
             layout_name(r->file_type, r->file_channels, to, sizeof to), r->format, what);
}

static fv_status encode(image_format format, const char *name, int fd, const fv_image *img,
                        const image_save_options *o, unsigned maxval)
{
    switch (format) {
    case IMAGE_FORMAT_JPEG: return codec_jpeg_encode(name, fd, img, o->jpeg_quality, o->metadata);
    case IMAGE_FORMAT_PNM: return codec_pnm_encode(name, fd, img, maxval);
    case IMAGE_FORMAT_TIFF:
        return codec_tiff_encode(name, fd, img, o->tiff_compression, o->tiff_tile, o->metadata);
    default: return codec_png_encode(name, fd, img, o->png_level, o->threads, o->metadata);
    }
}

/* image_save_as's encode as an image_writer. */
typedef struct encode_job {
    image_format format;
    const fv_image *img;
    const image_save_options *o;
    unsigned maxval;
} encode_job;

static fv_status encode_to(void *context, const char *name, int fd)
{
    const encode_job *j = context;
    return encode(j->format, name, fd, j->img, j->o, j->maxval);
}

fv_status image_save_as(const char *path, const fv_image *img, const image_save_options *opt,
                        image_save_report *report)
{
    image_save_options o = opt ? *opt : IMAGE_SAVE_DEFAULTS;
    if (o.png_level < 0 || o.png_level > 9) o.png_level = IMAGE_PNG_LEVEL_DEFAULT;
    if (o.jpeg_quality < 1 || o.jpeg_quality > 100) o.jpeg_quality = IMAGE_JPEG_QUALITY_DEFAULT;
    if (o.threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
    }
    image_save_report own, *r = report ? report : &own;
    memset(r, 0, sizeof *r);
    FV_TRY(image_check_output_path(path));
    const int stdio = image_is_stdio(path);
    char name[IMAGE_NAME_SHOWN];
    image_printable(stdio ? "standard output" : path, name, sizeof name);
    const image_format format = image_format_of(path, o.format);
    const int channels = fv_image_channels(img);
    fv_pixel_type to_type;
    int to_channels;
    format_layout(format, img->type, channels, &to_type, &to_channels);
    r->format = image_format_name(format);
    r->file_type = to_type;
    r->file_channels = format == IMAGE_FORMAT_JPEG && channels == 4 ? 3 : to_channels;
    fv_image converted = {0};
    const fv_image *out = img;
    if (to_type != img->type || to_channels != channels) {
        image_convert_loss loss;
        FV_TRY(image_convert(img, to_type, to_channels, NULL, &converted, &loss));
        out = &converted;
        if (loss.depth || loss.alpha) loss_note(r, name, img, &loss);
    }
    if (format == IMAGE_FORMAT_JPEG && to_channels == 4 && has_alpha(out)) {
        image_convert_loss loss = {.alpha = 1};
        loss.depth = r->lossy; /* a depth loss already said */
        loss_note(r, name, img, &loss);
    }
    if (format == IMAGE_FORMAT_PNG && to_channels == 4) r->file_channels = 4; /* or 3: opaque */
    encode_job job = {.format = format,
                      .img = out,
                      .o = &o,
                      .maxval = format == IMAGE_FORMAT_PNM ? pnm_maxval(out, o.metadata) : 0};
    fv_status s = image_save_encoded(path, encode_to, &job);
    fv_host_image_free(&converted);
    return s;
}

fv_status image_save_encoded(const char *path, image_writer write, void *context)
{
    FV_TRY(image_check_output_path(path));
    const int stdio = image_is_stdio(path);
    char name[IMAGE_NAME_SHOWN];
    image_printable(stdio ? "standard output" : path, name, sizeof name);
    if (stdio) {
        /* a closed pipe (`| head`) fails the write with EPIPE, said, instead of killing us */
        image_temp_signals_init();
        return write(context, name, STDOUT_FILENO);
    }
    image_temp t;
    FV_TRY(image_temp_open(path, &t));
    fv_status s = write(context, name, t.fd);
    if (s != FV_OK)
        image_temp_discard(&t);
    else
        s = image_temp_commit(&t, path);
    return s;
}

fv_status image_save(const char *path, const fv_image *img, const image_save_options *opt)
{
    return image_save_as(path, img, opt, NULL);
}

fv_status image_save_png(const char *path, const fv_image *img)
{
    return image_save(path, img, NULL);
}
