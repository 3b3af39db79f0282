/* The web counter's QR decoder: ZBar's image scanner, QR codes only, over a greyscale picture the page hands
 * over. peez_scan answers how many codes it read; peez_result(i) is the i-th one's text (NUL-terminated). */
#include <stdlib.h>
#include <string.h>
#include <zbar.h>

#define MAX_RESULTS 8

static zbar_image_scanner_t *scanner;
static char *results[MAX_RESULTS];
static int result_count;

int peez_scan(unsigned char *grey, int width, int height)
{
    if (!scanner) {
        scanner = zbar_image_scanner_create();
        zbar_image_scanner_set_config(scanner, 0, ZBAR_CFG_ENABLE, 0);
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    }
    for (int i = 0; i < result_count; i++) free(results[i]);
    result_count = 0;
    if (!grey || width <= 0 || height <= 0 || width > 8192 || height > 8192) return 0;

    zbar_image_t *image = zbar_image_create();
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image, (unsigned)width, (unsigned)height);
    zbar_image_set_data(image, grey, (unsigned long)width * (unsigned long)height, NULL);
    if (zbar_scan_image(scanner, image) > 0) {
        for (const zbar_symbol_t *symbol = zbar_image_first_symbol(image); symbol && result_count < MAX_RESULTS;
             symbol = zbar_symbol_next(symbol)) {
            unsigned length = zbar_symbol_get_data_length(symbol);
            char *text = malloc(length + 1);
            if (!text) break;
            memcpy(text, zbar_symbol_get_data(symbol), length);
            text[length] = 0;
            results[result_count++] = text;
        }
    }
    zbar_image_destroy(image);
    return result_count;
}

const char *peez_result(int index)
{
    return index >= 0 && index < result_count ? results[index] : "";
}
