#ifndef PEEZ_PNG_WRITER_H
#define PEEZ_PNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

/// A growable byte buffer owned by C; release it with `peez_png_buffer_free`.
typedef struct peez_png_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
} peez_png_buffer;

/// Tuning knobs for the zlib stream inside the PNG.
typedef struct peez_png_options {
    int compression_level; ///< 0...9, zlib's level
    int strategy;          ///< zlib strategy: 0 default, 1 filtered, 2 huffman only, 3 RLE
    int filters;           ///< libpng filter mask: PNG_FILTER_NONE (0x08), PNG_FILTER_UP (0x20), ...
} peez_png_options;

/// Writes a 1-bit greyscale PNG into `out`.
///
/// `rows` holds `height` pointers, each to `(width + 7) / 8` packed bytes (most significant bit first,
/// 1 = white, 0 = black, as PNG greyscale defines). Pointers may repeat, so a scaled image needs no copy.
/// Returns 0 on success. On failure returns -1, leaves `out` empty and points `*error` at a static message.
/// libpng's longjmp-based error handling never crosses into the caller.
int peez_png_write_gray1(const uint8_t *const *rows, uint32_t width, uint32_t height,
                         peez_png_options options, peez_png_buffer *out, const char **error);

/// Frees the buffer's storage and resets it to empty.
void peez_png_buffer_free(peez_png_buffer *buffer);

#endif
