#include "peez_image_reader.h"

#include <setjmp.h>
#include <stdio.h> /* before jpeglib.h, which needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

static const uint8_t png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static peez_image_status fail(const char **error, const char *message, peez_image_status status) {
    *error = message;
    return status;
}

static int too_large(uint32_t width, uint32_t height, peez_image_limits limits) {
    return width == 0 || height == 0 || width > limits.max_side || height > limits.max_side
        || (uint64_t)width * height > limits.max_pixels;
}

/* ---------------------------------------------------------------- PNG */

typedef struct png_source {
    const uint8_t *bytes;
    size_t size;
    size_t offset;
    const char *error;
    peez_image_status status;
    uint8_t *pixels;
    png_bytep *rows;
} png_source;

static void png_stop(png_structp png, png_source *source, const char *message, peez_image_status status) {
    if (source->status == PEEZ_IMAGE_OK) {
        source->status = status;
        source->error = message;
    }
    png_longjmp(png, 1);
}

static void png_on_error(png_structp png, png_const_charp message) {
    (void)message; /* libpng's text may live on its stack; report a stable message instead */
    png_stop(png, (png_source *)png_get_error_ptr(png), "the PNG data is corrupt", PEEZ_IMAGE_DAMAGED);
}

static void png_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void png_on_read(png_structp png, png_bytep data, png_size_t length) {
    png_source *source = (png_source *)png_get_io_ptr(png);
    if (length > source->size - source->offset) {
        png_stop(png, source, "the PNG file is cut short", PEEZ_IMAGE_DAMAGED);
    }
    memcpy(data, source->bytes + source->offset, length);
    source->offset += length;
}

static peez_image_status decode_png(const uint8_t *bytes, size_t size, peez_image_limits limits,
                                     peez_gray_image *out, const char **error) {
    png_source source = { bytes, size, 0, NULL, PEEZ_IMAGE_OK, NULL, NULL };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, png_on_error, png_on_warning);
    if (png == NULL) return fail(error, "libpng could not start a reader", PEEZ_IMAGE_NO_MEMORY);
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return fail(error, "libpng could not allocate image info", PEEZ_IMAGE_NO_MEMORY);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(source.rows);
        free(source.pixels);
        return fail(error, source.error ? source.error : "the PNG data is corrupt",
                    source.status == PEEZ_IMAGE_OK ? PEEZ_IMAGE_DAMAGED : source.status);
    }
    png_set_read_fn(png, &source, png_on_read);
    /* Dimensions are judged below against the caller's limits, so libpng's own may be wide. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    /* Ancillary chunks (compressed text, ICC profiles) could inflate without end: cap and mostly skip them. */
    png_set_chunk_malloc_max(png, 8u << 20);
    png_set_chunk_cache_max(png, 128);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    if (too_large(width, height, limits)) {
        out->width = width; /* so the caller can say what was claimed */
        out->height = height;
        png_stop(png, &source, "the PNG is larger than any photo of a card", PEEZ_IMAGE_TOO_LARGE);
    }
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_strip_16(png);
    if (color_type & (PNG_COLOR_MASK_COLOR | PNG_COLOR_MASK_PALETTE)) png_set_rgb_to_gray_fixed(png, 1, -1, -1);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t channels = png_get_channels(png, info); /* 1 (grey) or 2 (grey and alpha) */
    if (png_get_rowbytes(png, info) != width * channels || channels > 2) {
        png_stop(png, &source, "the PNG uses a pixel layout this reader does not know", PEEZ_IMAGE_DAMAGED);
    }
    source.pixels = (uint8_t *)malloc((size_t)width * height * channels);
    source.rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (source.pixels == NULL || source.rows == NULL) {
        png_stop(png, &source, "out of memory while reading the PNG", PEEZ_IMAGE_NO_MEMORY);
    }
    for (png_uint_32 y = 0; y < height; y++) source.rows[y] = source.pixels + (size_t)y * width * channels;
    png_read_image(png, source.rows);

    if (channels == 2) { /* lay transparent pixels over white, in place */
        size_t count = (size_t)width * height;
        for (size_t i = 0; i < count; i++) {
            unsigned grey = source.pixels[2 * i], alpha = source.pixels[2 * i + 1];
            source.pixels[i] = (uint8_t)((grey * alpha + 255u * (255u - alpha) + 127u) / 255u);
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(source.rows);
    out->pixels = source.pixels;
    out->width = width;
    out->height = height;
    return PEEZ_IMAGE_OK;
}

/* ---------------------------------------------------------------- JPEG */

typedef struct jpeg_guard {
    struct jpeg_error_mgr base; /* first, so libjpeg's err pointer is this guard */
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    const char *error;
    peez_image_status status;
    uint32_t max_scans;
} jpeg_guard;

static void jpeg_stop(j_common_ptr cinfo, const char *message, peez_image_status status) {
    jpeg_guard *guard = (jpeg_guard *)cinfo->err;
    if (guard->status == PEEZ_IMAGE_OK) {
        guard->status = status;
        guard->error = message;
    }
    longjmp(guard->jump, 1);
}

static void jpeg_on_error(j_common_ptr cinfo) {
    int code = cinfo->err->msg_code;
    if (code == JERR_OUT_OF_MEMORY || code == JERR_NO_BACKING_STORE) {
        jpeg_stop(cinfo, "decoding the JPEG would take more memory than allowed", PEEZ_IMAGE_TOO_LARGE);
    }
    jpeg_stop(cinfo, "the JPEG data is corrupt or in a form this reader does not take (CMYK, arithmetic coding)",
              PEEZ_IMAGE_DAMAGED);
}

static void jpeg_on_message(j_common_ptr cinfo, int level) {
    (void)cinfo; /* warnings (a cut-short file, corrupt entropy data) still give a picture: keep going, quietly */
    (void)level;
}

static void jpeg_on_progress(j_common_ptr cinfo) {
    jpeg_guard *guard = (jpeg_guard *)cinfo->err;
    if (cinfo->is_decompressor && (uint32_t)((j_decompress_ptr)cinfo)->input_scan_number > guard->max_scans) {
        jpeg_stop(cinfo, "the JPEG has more progressive scans than any camera writes", PEEZ_IMAGE_TOO_LARGE);
    }
}

static peez_image_status decode_jpeg(const uint8_t *bytes, size_t size, peez_image_limits limits,
                                      peez_gray_image *out, const char **error) {
    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    memset(&guard, 0, sizeof guard);
    guard.max_scans = limits.max_jpeg_scans;
    uint8_t *volatile pixels = NULL;

    cinfo.err = jpeg_std_error(&guard.base);
    guard.base.error_exit = jpeg_on_error;
    guard.base.emit_message = jpeg_on_message;
    if (setjmp(guard.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return fail(error, guard.error ? guard.error : "the JPEG data is corrupt",
                    guard.status == PEEZ_IMAGE_OK ? PEEZ_IMAGE_DAMAGED : guard.status);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = (long)limits.max_decoder_bytes;
    guard.progress.progress_monitor = jpeg_on_progress;
    cinfo.progress = &guard.progress;
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
        jpeg_stop((j_common_ptr)&cinfo, "the JPEG has no image", PEEZ_IMAGE_DAMAGED);
    }
    if (too_large(cinfo.image_width, cinfo.image_height, limits)) {
        out->width = cinfo.image_width; /* so the caller can say what was claimed */
        out->height = cinfo.image_height;
        jpeg_stop((j_common_ptr)&cinfo, "the JPEG is larger than any photo of a card",
                  PEEZ_IMAGE_TOO_LARGE);
    }
    cinfo.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&cinfo);
    uint32_t width = cinfo.output_width, height = cinfo.output_height;
    if (cinfo.output_components != 1 || too_large(width, height, limits)) {
        jpeg_stop((j_common_ptr)&cinfo, "the JPEG did not decode to greyscale", PEEZ_IMAGE_DAMAGED);
    }
    pixels = (uint8_t *)malloc((size_t)width * height);
    if (pixels == NULL) jpeg_stop((j_common_ptr)&cinfo, "out of memory while reading the JPEG", PEEZ_IMAGE_NO_MEMORY);
    while (cinfo.output_scanline < height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * width;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break; /* suspended: cannot happen with a memory source */
    }
    jpeg_abort_decompress(&cinfo); /* whatever follows the last scanline is not needed */
    jpeg_destroy_decompress(&cinfo);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return PEEZ_IMAGE_OK;
}

/* ---------------------------------------------------------------- entry points */

peez_image_status peez_image_decode(const uint8_t *bytes, size_t size, peez_image_limits limits,
                                    peez_gray_image *out, const char **error) {
    out->pixels = NULL;
    out->width = 0;
    out->height = 0;
    if (bytes != NULL && size >= sizeof png_signature && memcmp(bytes, png_signature, sizeof png_signature) == 0) {
        return decode_png(bytes, size, limits, out, error);
    }
    if (bytes != NULL && size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
        return decode_jpeg(bytes, size, limits, out, error);
    }
    return fail(error, "not a PNG or JPEG image", PEEZ_IMAGE_NOT_AN_IMAGE);
}

void peez_gray_image_free(peez_gray_image *image) {
    free(image->pixels);
    image->pixels = NULL;
    image->width = 0;
    image->height = 0;
}
