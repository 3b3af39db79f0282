#include "peez_png_writer.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct writer_state {
    peez_png_buffer *out;
    const char *error;
} writer_state;

static void on_error(png_structp png, png_const_charp message) {
    writer_state *state = (writer_state *)png_get_error_ptr(png);
    (void)message; /* libpng's text may live on its stack; report a stable message instead */
    state->error = "libpng failed while writing the image";
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void on_write(png_structp png, png_bytep data, png_size_t length) {
    writer_state *state = (writer_state *)png_get_io_ptr(png);
    peez_png_buffer *out = state->out;
    if (out->size + length > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 4096;
        while (capacity < out->size + length) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(out->data, capacity);
        if (grown == NULL) {
            state->error = "out of memory while writing the PNG";
            png_longjmp(png, 1);
        }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, data, length);
    out->size += length;
}

static void on_flush(png_structp png) { (void)png; }

int peez_png_write_gray1(const uint8_t *const *rows, uint32_t width, uint32_t height,
                         peez_png_options options, peez_png_buffer *out, const char **error) {
    writer_state state = { out, NULL };
    out->size = 0;
    if (width == 0 || height == 0 || rows == NULL) {
        *error = "the image is empty";
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
    if (png == NULL) {
        *error = "libpng could not start a writer";
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        *error = "libpng could not allocate image info";
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        peez_png_buffer_free(out);
        *error = state.error ? state.error : "libpng failed while writing the image";
        return -1;
    }
    png_set_write_fn(png, &state, on_write, on_flush);
    png_set_compression_level(png, options.compression_level);
    png_set_compression_strategy(png, options.strategy);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, options.filters);
    png_set_IHDR(png, info, width, height, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)rows[y]);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

void peez_png_buffer_free(peez_png_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}
