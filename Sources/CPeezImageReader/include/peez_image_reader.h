#ifndef PEEZ_IMAGE_READER_H
#define PEEZ_IMAGE_READER_H

#include <stddef.h>
#include <stdint.h>

/// An 8-bit greyscale picture owned by C, one byte a pixel, rows packed; release it with `peez_gray_image_free`.
typedef struct peez_gray_image {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
} peez_gray_image;

/// What a hostile file may ask for before it is refused.
typedef struct peez_image_limits {
    uint32_t max_side;          ///< pixels on either side
    uint64_t max_pixels;        ///< width × height
    uint64_t max_decoder_bytes; ///< memory libjpeg may allocate (progressive files keep every coefficient)
    uint32_t max_jpeg_scans;    ///< progressive scans; thousands of tiny scans are a known denial of service
} peez_image_limits;

/// How reading failed, so the caller can word it.
typedef enum peez_image_status {
    PEEZ_IMAGE_OK = 0,
    PEEZ_IMAGE_NOT_AN_IMAGE = 1, ///< neither a PNG nor a JPEG signature
    PEEZ_IMAGE_TOO_LARGE = 2,    ///< dimensions or decoder memory beyond the limits
    PEEZ_IMAGE_DAMAGED = 3,      ///< truncated or corrupt data
    PEEZ_IMAGE_NO_MEMORY = 4,
} peez_image_status;

/// Decodes a PNG or JPEG held in memory to greyscale (transparent pixels over white).
///
/// Dimensions are checked against `limits` from the header, before any pixel memory is allocated. On failure
/// `out` holds no pixels (for `PEEZ_IMAGE_TOO_LARGE` from the header, its width and height say what was claimed) and `*error` points at a static message. libpng's and libjpeg's longjmp-based error
/// handling never crosses into the caller.
peez_image_status peez_image_decode(const uint8_t *bytes, size_t size, peez_image_limits limits,
                                    peez_gray_image *out, const char **error);

/// Frees the picture's pixels and resets it to empty.
void peez_gray_image_free(peez_gray_image *image);

#endif
